-- The body of a fair semaphore acquire (or a try that respects the key's queue), shared by
-- semaphoreAcquire-7 (one key) and semaphoreAcquireBatch-n (several in one call; decision
-- 0226): composed where a script says `-- #include permitFair` by scripts/gen-lua.mjs, after
-- fence, queue, permits and watch.
--
-- permitAcquireFair(grantsKey, factsKey, counterKey, epochKey, queueKey, waitersKey,
-- watchKey, lockId, clientId, ownerId, leaseMs, permits, total, elsewhere, heartbeatMs,
-- waiterId, minEpoch, maxLeaseMs, span, maxTotal, nowMs, shared) answers one acquire as
-- semaphoreAcquire-7 documents. nowMs is the Redis clock the script read once; `shared` is a
-- table the caller keeps for the whole script, where boundEpochOnce keeps the epoch check.
local function permitAcquireFair(grantsKey, factsKey, counterKey, epochKey, queueKey,
                                 waitersKey, watchKey, lockId, clientId, ownerId, leaseArg,
                                 permitsArg, totalArg, elsewhereArg, heartbeatArg, me,
                                 minEpoch, maxLeaseMs, span, maxTotal, nowMs, shared)
  local leaseMs = tonumber(leaseArg)
  local permits = tonumber(permitsArg)
  local total = tonumber(totalArg)
  local elsewhere = tonumber(elsewhereArg)
  if not permitArgsValid(leaseMs, maxLeaseMs, permits, total, maxTotal, elsewhere) then
    return { -1 }
  end

  local inUse, held = livePermits(grantsKey, factsKey, nowMs)

  -- The key's queue (fair calls only), kept as for the mutex (acquireLock-7.lua).
  local fair = heartbeatArg ~= ""
  local placed, queued = fairPlace(queueKey, waitersKey, me, heartbeatArg, maxLeaseMs, nowMs)
  if not placed then
    return { -1 }
  end

  -- A refusal writes nothing but the watch mark and mints no fence, so it needs no epoch check.
  local needed = inUse + elsewhere + permits - total
  if needed > 0 then
    local retryMs = retryAfterMs(held, needed)
    markWatched(watchKey, retryMs)
    return { 0, inUse, retryMs, nowMs }
  end
  if queued then
    markWatched(watchKey, 0)
    return { -7, inUse }
  end

  local epoch, notBound = boundEpochOnce(shared, epochKey, minEpoch)
  if not epoch then
    return notBound
  end

  local minted = mintFence(counterKey, epoch, span)
  if not minted then
    return { -4 }
  end
  if fair and me ~= "" then
    redis.call("ZREM", queueKey, me)
    redis.call("HDEL", waitersKey, me)
  end
  writeGrant(grantsKey, factsKey, lockId, permitsArg, minted, nowMs, clientId, ownerId, totalArg,
    leaseMs, #held > 0)
  return { 1, lockId, minted, inUse + permits, leaseMs, nowMs }
end
