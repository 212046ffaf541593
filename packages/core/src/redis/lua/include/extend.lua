-- The body of a mutex extend, shared by extendLock-2 (one key) and extendLockBatch-n
-- (several in one call; decision 0213): composed where a script says `-- #include extend`
-- by scripts/gen-lua.mjs. extendOne(leaseKey, delayKey, lockId, leaseMs, maxLeaseMs, nowMs)
-- answers one extend as extendLock-2 documents; nowMs is the Redis clock the caller read.
local function extendOne(leaseKey, delayKey, lockId, leaseMsArg, maxLeaseMs, nowMs)
  local leaseMs = tonumber(leaseMsArg)
  if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
    return { -1 }
  end
  local current = redis.call("GET", leaseKey)
  if not current then
    return { -5 }
  end
  local id, head, renewals, tail = string.match(current, "^([^|]*)(|[^|]*|[^|]*|[^|]*|)([^|]*)(|.*)$")
  if id ~= lockId then
    return { -6 }
  end
  local value = id .. head .. (tonumber(renewals) + 1) .. tail
  redis.call("SET", leaseKey, value, "PX", leaseMs)
  local delayMs = tonumber(redis.call("GET", delayKey) or "0") or 0
  if delayMs > 0 then
    redis.call("SET", delayKey, delayMs, "PX", leaseMs + delayMs)
  end
  return { 1, value, leaseMs, nowMs, delayMs }
end
