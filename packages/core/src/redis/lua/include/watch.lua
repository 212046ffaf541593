-- The watch mark shared by the acquire scripts (decision 0206): composed into each
-- script where it says `-- #include watch` by scripts/gen-lua.mjs (decision 0179).

-- Marks watchKey (a string, PX) when a caller is refused the key: that caller waits for
-- the key's release, or its SDK stops asking until the release is announced, possibly on
-- another server instance, so the release script (releaseLock-3, semaphoreRelease-3,
-- rwRelease-2) reports the mark and the releasing instance announces the release to the
-- others only then. The mark outlives what it covers: the refusal's ms (the holder's
-- remaining lease, the lock-delay left, or the semaphore's or read-write lock's retryAfterMs;
-- 0 when the script reports none) plus 5 s, longer than a waiter sleeps between two tries
-- (at most 2 s for the mutex, 1 s for the others; each try marks again). pcall: a node that
-- cannot write (a demoted master, out of memory) still answers the refusal; a mark that
-- could not be made only delays a waiter until its next try.
local function markWatched(watchKey, ms)
  redis.pcall("SET", watchKey, "1", "PX", math.max(ms, 0) + 5000)
end
