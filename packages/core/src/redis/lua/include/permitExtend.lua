-- The body of a permit extend, shared by semaphoreExtend-2 (one grant) and
-- semaphoreExtendBatch-n (several in one call; decision 0213): composed where a script says
-- `-- #include permitExtend` by scripts/gen-lua.mjs. permitExtendOne(grantsKey, factsKey,
-- lockId, leaseMs, maxLeaseMs, nowMs) answers one extend as semaphoreExtend-2 documents;
-- nowMs is the Redis clock the caller read.
local function permitExtendOne(grantsKey, factsKey, lockId, leaseMsArg, maxLeaseMs, nowMs)
  local leaseMs = tonumber(leaseMsArg)
  if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
    return { -1 }
  end
  local score = redis.call("ZSCORE", grantsKey, lockId)
  local facts = redis.call("HGET", factsKey, lockId)
  if not score or not facts or tonumber(score) <= nowMs then
    return { -5 }
  end
  local head, renewals, tail = string.match(facts, "^([^|]*|[^|]*|[^|]*|)([^|]*)(|.*)$")
  local value = head .. (tonumber(renewals) + 1) .. tail
  local expiresAt = nowMs + leaseMs
  redis.call("ZADD", grantsKey, string.format("%.0f", expiresAt), lockId)
  redis.call("HSET", factsKey, lockId, value)
  if redis.call("PTTL", grantsKey) < leaseMs then redis.call("PEXPIRE", grantsKey, leaseMs) end
  if redis.call("PTTL", factsKey) < leaseMs then redis.call("PEXPIRE", factsKey, leaseMs) end
  return { 1, value, expiresAt, nowMs }
end
