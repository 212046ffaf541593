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
-- #include permitExtend
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return permitExtendOne(KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3]), nowMs)
