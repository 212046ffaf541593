--[[
  Several acquires of acquireLock-7 (fair ones, or tries that respect a fair key's queue) in
  one call (decision 0213): what acquireLock-7 does for one key, for each of n keys in
  order, with the epoch check and the Redis clock read once. The acquires are independent:
  each gets its own reply, as if sent one after another with nothing in between (two
  waiters of one key queue in the order they come). Standalone and sentinel only (the keys
  need not share a slot).

  KEYS[1]            epoch key (as acquireLock-7's KEYS[3]; one for every acquire)
  KEYS[6i-4..6i+1]   for acquire i = 1..n: lock key, counter key, queue key, waiters key,
                     delay key, watch key (acquireLock-7's KEYS[1], [2], [4], [5], [6], [7])

  ARGV[1]  minEpoch    ARGV[2]  maxLeaseMs    ARGV[3]  counterSpan (as acquireLock-7)
  ARGV[7i-3..7i+3]   for acquire i: lockId, clientId, ownerId, leaseMs, heartbeatMs ("" for
                     none), waiterId, lockDelayMs (acquireLock-7's ARGV[1..4], [8], [9], [10])

  Returns { reply 1, …, reply n }, each exactly acquireLock-7's reply for that acquire.
]]
-- #include fence
-- #include queue
-- #include watch
-- #include fair
local minEpoch = tonumber(ARGV[1])
local maxLeaseMs = tonumber(ARGV[2])
local span = tonumber(ARGV[3])
local shared = {}
local replies = {}
local n = (#KEYS - 1) / 6
for i = 1, n do
  local k = 6 * i - 4
  local a = 7 * i - 3
  replies[i] = fairAcquire(KEYS[k], KEYS[k + 1], KEYS[1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4],
    KEYS[k + 5], ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5],
    ARGV[a + 6], minEpoch, maxLeaseMs, span, shared)
end
return replies
