-- The body of a plain (not fair) acquire, shared by acquirePlain-5 (one key) and
-- acquirePlainBatch-n (several keys in one call; decision 0213): composed where a script
-- says `-- #include plain` by scripts/gen-lua.mjs, after fence and watch.
--
-- plainAcquire(leaseKey, counterKey, epochKey, delayKey, watchKey, lockId, clientId, ownerId,
-- leaseMs, delayMs, minEpoch, maxLeaseMs, span, shared) answers one acquire as acquirePlain-5
-- documents. `shared` is a table the caller keeps for the whole script: the epoch check
-- (boundEpochOnce) and the Redis clock are read once per script and kept there (both scripts
-- pass one epoch key for every acquire).
local function plainAcquire(leaseKey, counterKey, epochKey, delayKey, watchKey, lockId,
                            clientId, ownerId, leaseArg, delayArg, minEpoch, maxLeaseMs, span,
                            shared)
  local leaseMs = tonumber(leaseArg)
  if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
    return { -1 }
  end

  -- A refusal first: it mints no fence and writes nothing but the watch mark, so it needs no
  -- epoch check (and on a contended key most calls are refusals).
  local current = redis.call("GET", leaseKey)
  local id, fence, reentry, grantedAt, renewals, heldClient, heldOwner
  if current then
    id, fence, reentry, grantedAt, renewals, heldClient, heldOwner =
      string.match(current, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$")
    if heldClient ~= clientId or heldOwner ~= ownerId then
      local pttl = redis.call("PTTL", leaseKey)
      markWatched(watchKey, pttl)
      return { 0, heldClient, heldOwner, pttl }
    end
  end
  local delayMs = tonumber(delayArg)
  if delayMs > 0 and not current then
    local waitMs = redis.call("PTTL", delayKey)
    if waitMs > 0 then
      markWatched(watchKey, waitMs)
      return { -8, waitMs }
    end
  end

  -- Everything below writes. A promoted replica carries the old master's epoch record but has
  -- a new replication id: refusing here closes the window before the store notices the
  -- failover (docs/decisions/0004).
  local epoch, notBound = boundEpochOnce(shared, epochKey, minEpoch)
  if not epoch then
    return notBound
  end
  if not shared.nowMs then
    local time = redis.call("TIME")
    shared.nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  local nowMs = shared.nowMs

  if current then
    reentry = tonumber(reentry) + 1
    -- A re-entry extends the lease but never shortens it.
    local keepMs = math.max(redis.call("PTTL", leaseKey), leaseMs)
    redis.call("SET", leaseKey,
      id .. "|" .. fence .. "|" .. reentry .. "|" .. grantedAt .. "|" .. renewals .. "|" .. heldClient .. "|" .. heldOwner,
      "PX", keepMs)
    if delayMs > 0 then
      redis.call("SET", delayKey, delayMs, "PX", keepMs + delayMs)
    end
    return { 1, tonumber(fence), nowMs, id, reentry, keepMs, tonumber(grantedAt), tonumber(renewals) }
  end

  local minted = mintFence(counterKey, epoch, span)
  if not minted then
    return { -4 }
  end
  redis.call("SET", leaseKey,
    lockId .. "|" .. string.format("%.0f", minted) .. "|1|" .. string.format("%.0f", nowMs) .. "|0|" .. clientId .. "|" .. ownerId,
    "PX", leaseMs)
  if delayMs > 0 then
    -- The shadow outlives the lease by the delay: it is what remains after an expiry.
    redis.call("SET", delayKey, delayMs, "PX", leaseMs + delayMs)
  end
  return { 1, minted, nowMs }
end
