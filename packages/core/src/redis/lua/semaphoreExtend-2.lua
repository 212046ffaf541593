--[[
  Sets the remaining lease of one semaphore grant to leaseMs from now and counts the renewal
  (docs/decisions/0160).

  KEYS[1]  grants key   zset lockId -> expiry (Redis clock, ms)
  KEYS[2]  facts key    hash lockId -> "permits|fence|grantedAt|renewals|clientId|ownerId"
  ARGV[1]  lockId
  ARGV[2]  leaseMs, integer in 1..ARGV[3]
  ARGV[3]  maxLeaseMs

  Returns:
    { 1, facts, expiresAt, nowMs }   extended; facts as now stored
    { -1 }                           leaseMs out of range
    { -5 }                           no live grant of that lockId
]]
local leaseMs = tonumber(ARGV[2])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > tonumber(ARGV[3]) then
  return { -1 }
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local score = redis.call("ZSCORE", KEYS[1], ARGV[1])
local facts = redis.call("HGET", KEYS[2], ARGV[1])
if not score or not facts or tonumber(score) <= nowMs then
  return { -5 }
end
local head, renewals, tail = string.match(facts, "^([^|]*|[^|]*|[^|]*|)([^|]*)(|.*)$")
local value = head .. (tonumber(renewals) + 1) .. tail
local expiresAt = nowMs + leaseMs
redis.call("ZADD", KEYS[1], string.format("%.0f", expiresAt), ARGV[1])
redis.call("HSET", KEYS[2], ARGV[1], value)
if redis.call("PTTL", KEYS[1]) < leaseMs then redis.call("PEXPIRE", KEYS[1], leaseMs) end
if redis.call("PTTL", KEYS[2]) < leaseMs then redis.call("PEXPIRE", KEYS[2], leaseMs) end
return { 1, value, expiresAt, nowMs }
