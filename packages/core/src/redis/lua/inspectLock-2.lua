--[[
  Reads a lease and its remaining time in one step; with no lease, the lock-delay left.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId"
  KEYS[2]  delay key    the lock-delay shadow (acquirePlain-4.lua): lockDelayMs, or absent

  Returns:
    { 1, value, pttlMs, nowMs }   a live lease
    { 0 }                         no lease, no delay in force
    { -8, waitMs, nowMs }         no lease, but a lock-delay in force for waitMs more
]]
local current = redis.call("GET", KEYS[1])
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if not current then
  local waitMs = redis.call("PTTL", KEYS[2])
  if waitMs > 0 then
    return { -8, waitMs, nowMs }
  end
  return { 0 }
end
return { 1, current, redis.call("PTTL", KEYS[1]), nowMs }
