-- The body of a read-write grant extend, shared by rwExtend-1 (one grant) and
-- rwExtendBatch-n (several in one call; decision 0213): composed where a script says
-- `-- #include rwExtend` by scripts/gen-lua.mjs. rwExtendOne(stateKey, lockId, leaseMs,
-- maxLeaseMs, retainMs, nowMs) answers one extend as rwExtend-1 documents; nowMs is the
-- Redis clock the caller read.
local function rwExtendOne(stateKey, lockId, leaseMsArg, maxLeaseMs, retainMs, nowMs)
  local leaseMs = tonumber(leaseMsArg)
  if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
    return { -1 }
  end
  local field = "g:" .. lockId
  local value = redis.call("HGET", stateKey, field)
  if not value then
    return { -5 }
  end
  local head, n, e, tail = string.match(value, "^([^|]*|[^|]*|[^|]*|[^|]*|)([^|]*)|([^|]*)(|.*)$")
  if tonumber(e) <= nowMs then
    redis.call("HDEL", stateKey, field)
    return { -5 }
  end
  local expiresAt = nowMs + leaseMs
  local updated = head .. (tonumber(n) + 1) .. "|" .. string.format("%.0f", expiresAt) .. tail
  redis.call("HSET", stateKey, field, updated)
  local keep = leaseMs + retainMs
  if redis.call("PTTL", stateKey) < keep then
    redis.call("PEXPIRE", stateKey, keep)
  end
  return { 1, updated, nowMs }
end
