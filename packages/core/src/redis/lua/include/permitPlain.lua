-- The body of a plain (not fair) semaphore acquire, shared by semaphoreAcquirePlain-5 (one
-- key) and semaphoreAcquirePlainBatch-n (several in one call; decision 0213): composed where
-- a script says `-- #include permitPlain` by scripts/gen-lua.mjs, after fence, permits and
-- watch.
--
-- permitAcquirePlain(grantsKey, factsKey, counterKey, epochKey, watchKey, lockId, clientId,
-- ownerId, leaseMs, permits, total, elsewhere, minEpoch, maxLeaseMs, span, maxTotal, nowMs,
-- shared) answers one acquire as semaphoreAcquirePlain-5 documents. nowMs is the Redis clock
-- the script read once; `shared` is a table the caller keeps for the whole script, where
-- boundEpochOnce keeps the epoch check.
local function permitAcquirePlain(grantsKey, factsKey, counterKey, epochKey, watchKey, lockId,
                                  clientId, ownerId, leaseArg, permitsArg, totalArg,
                                  elsewhereArg, minEpoch, maxLeaseMs, span, maxTotal, nowMs,
                                  shared)
  local leaseMs = tonumber(leaseArg)
  local permits = tonumber(permitsArg)
  local total = tonumber(totalArg)
  local elsewhere = tonumber(elsewhereArg)
  if not permitArgsValid(leaseMs, maxLeaseMs, permits, total, maxTotal, elsewhere) then
    return { -1 }
  end

  local inUse, held = livePermits(grantsKey, factsKey, nowMs)

  -- A refusal writes nothing but the watch mark and mints no fence, so it needs no epoch check.
  local needed = inUse + elsewhere + permits - total
  if needed > 0 then
    local retryMs = retryAfterMs(held, needed)
    markWatched(watchKey, retryMs)
    return { 0, inUse, retryMs, nowMs }
  end

  local epoch, notBound = boundEpochOnce(shared, epochKey, minEpoch)
  if not epoch then
    return notBound
  end
  local minted = mintFence(counterKey, epoch, span)
  if not minted then
    return { -4 }
  end
  writeGrant(grantsKey, factsKey, lockId, permitsArg, minted, nowMs, clientId, ownerId, totalArg,
    leaseMs, #held > 0)
  return { 1, minted, inUse + permits, nowMs }
end
