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

  nowMs is read before the writes: the expiresAt a caller computes from it is never later
  than the key's real expiry.
]]
-- #include extend
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return extendOne(KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3]), nowMs)
