--[[
  Sets the remaining lease of the grant lockId to leaseMs from now (store clock) and counts
  the renewal in the lease; a lock-delay shadow moves with it (PX = leaseMs + its delay).

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId"
  KEYS[2]  delay key    the lock-delay shadow (acquirePlain-5.lua): lockDelayMs, or absent
  ARGV[1]  lockId
  ARGV[2]  leaseMs, integer in 1..ARGV[3]
  ARGV[3]  maxLeaseMs

  Returns:
    { 1, value, leaseMs, nowMs, delayMs }
                                   extended; value is the lease string as now stored,
                                   delayMs the lock-delay that moved with it (0: none)
    { -1 }                         leaseMs out of range
    { -5 }                         no lease: it expired or was released
    { -6 }                         the key is held under another lockId
]]
local leaseMs = tonumber(ARGV[2])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > tonumber(ARGV[3]) then
  return { -1 }
end
local current = redis.call("GET", KEYS[1])
if not current then
  return { -5 }
end
local id, head, renewals, tail = string.match(current, "^([^|]*)(|[^|]*|[^|]*|[^|]*|)([^|]*)(|.*)$")
if id ~= ARGV[1] then
  return { -6 }
end
local value = id .. head .. (tonumber(renewals) + 1) .. tail
redis.call("SET", KEYS[1], value, "PX", leaseMs)
local delayMs = tonumber(redis.call("GET", KEYS[2]) or "0") or 0
if delayMs > 0 then
  redis.call("SET", KEYS[2], delayMs, "PX", leaseMs + delayMs)
end
local time = redis.call("TIME")
return { 1, value, leaseMs, tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), delayMs }
