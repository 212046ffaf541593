-- The body of an acquire that may be fair, shared by acquireLock-7 (one key) and
-- acquireLockBatch-n (several keys in one call; decision 0213): composed where a script says
-- `-- #include fair` by scripts/gen-lua.mjs, after fence, queue and watch.
--
-- fairAcquire(leaseKey, counterKey, epochKey, queueKey, waitersKey, delayKey, watchKey,
-- lockId, clientId, ownerId, leaseMs, heartbeatMs, waiterId, delayMs, minEpoch, maxLeaseMs,
-- span, shared) answers one acquire as acquireLock-7 documents (heartbeatMs "" for a plain
-- one). `shared` is a table the caller keeps for the whole script: the Redis clock and the
-- epoch check (boundEpochOnce) are read once per script and kept there (both scripts pass
-- one epoch key for every acquire).
local function fairAcquire(leaseKey, counterKey, epochKey, queueKey, waitersKey, delayKey,
                           watchKey, lockId, clientId, ownerId, leaseArg, heartbeatArg, me,
                           delayArg, minEpoch, maxLeaseMs, span, shared)
  local leaseMs = tonumber(leaseArg)
  if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
    return { -1 }
  end

  if not shared.nowMs then
    local time = redis.call("TIME")
    shared.nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  local nowMs = shared.nowMs

  -- The key's queue (fair calls only): drop dead waiters at its head, append or renew the
  -- caller's place, and see whether a live waiter is ahead of it. The first live entry is
  -- the head; nobody else may take the free key.
  local fair = heartbeatArg ~= ""
  local placed, queued = fairPlace(queueKey, waitersKey, me, heartbeatArg, maxLeaseMs, nowMs)
  if not placed then
    return { -1 }
  end

  -- A refusal first: it mints no fence and writes nothing but the watch mark (and the queue
  -- place above), so it needs no epoch check (and on a contended key most calls are refusals).
  local current = redis.call("GET", leaseKey)
  local id, fence, reentry, grantedAt, renewals, heldClient, heldOwner
  if current then
    id, fence, reentry, grantedAt, renewals, heldClient, heldOwner =
      string.match(current, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$")
    if heldClient ~= clientId or heldOwner ~= ownerId then
      local pttl = redis.call("PTTL", leaseKey)
      markWatched(watchKey, pttl)
      return { 0, heldClient, heldOwner, pttl, nowMs }
    end
  end
  local delayMs = tonumber(delayArg)
  if not current and delayMs > 0 then
    local waitMs = redis.call("PTTL", delayKey)
    if waitMs > 0 then
      markWatched(watchKey, waitMs)
      return { -8, waitMs }
    end
  end
  if not current and queued then
    markWatched(watchKey, 0)
    return { -7 }
  end

  -- Everything below writes. A promoted replica carries the old master's epoch record but has
  -- a new replication id: refusing here closes the window before the store notices the
  -- failover (docs/decisions/0004).
  local epoch, notBound = boundEpochOnce(shared, epochKey, minEpoch)
  if not epoch then
    return notBound
  end

  -- A grant or a re-entry uses up the fair caller's place.
  local function leaveQueue()
    if fair and me ~= "" then
      redis.call("ZREM", queueKey, me)
      redis.call("HDEL", waitersKey, me)
    end
  end

  if current then
    leaveQueue()
    reentry = tonumber(reentry) + 1
    -- A re-entry extends the lease but never shortens it.
    local keepMs = math.max(redis.call("PTTL", leaseKey), leaseMs)
    redis.call("SET", leaseKey,
      id .. "|" .. fence .. "|" .. reentry .. "|" .. grantedAt .. "|" .. renewals .. "|" .. heldClient .. "|" .. heldOwner,
      "PX", keepMs)
    if delayMs > 0 then
      redis.call("SET", delayKey, delayMs, "PX", keepMs + delayMs)
    end
    return { 1, id, tonumber(fence), reentry, keepMs, nowMs, tonumber(grantedAt), tonumber(renewals) }
  end

  local minted = mintFence(counterKey, epoch, span)
  if not minted then
    return { -4 }
  end
  leaveQueue()
  redis.call("SET", leaseKey,
    lockId .. "|" .. string.format("%.0f", minted) .. "|1|" .. string.format("%.0f", nowMs) .. "|0|" .. clientId .. "|" .. ownerId,
    "PX", leaseMs)
  if delayMs > 0 then
    -- The shadow outlives the lease by the delay: it is what remains after an expiry.
    redis.call("SET", delayKey, delayMs, "PX", leaseMs + delayMs)
  end
  return { 1, lockId, minted, 1, leaseMs, nowMs, nowMs, 0 }
end
