--[[
  Removes a lease whatever its re-entry count: an operator's release, or the cleanup of a
  grant whose reply was lost or was not acknowledged by enough replicas.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId"
  KEYS[2]  delay key    the lock-delay shadow (acquirePlain-5.lua): lockDelayMs, or absent
  ARGV[1]  lockId to match, or "" to remove whoever holds the key
  ARGV[2]  "delay" for an operator's release: the shadow then runs for its whole delay
           from now (nobody gets the key before it passes); "" for a cleanup: the shadow
           goes with the lease (a grant nobody was told of ends without a delay)

  Returns:
    { 1, value, pttlMs, nowMs, delayMs }
                                  removed; value is what was stored, delayMs the lease's
                                  lock-delay (0: none), running from now with "delay"
    { 0 }                         nothing removed (no lease, or another lockId holds it)
]]
local current = redis.call("GET", KEYS[1])
if not current then
  return { 0 }
end
if ARGV[1] ~= "" and string.match(current, "^([^|]*)|") ~= ARGV[1] then
  return { 0 }
end
local pttl = redis.call("PTTL", KEYS[1])
redis.call("DEL", KEYS[1])
local delayMs = tonumber(redis.call("GET", KEYS[2]) or "0") or 0
if delayMs > 0 and ARGV[2] == "delay" then
  redis.call("SET", KEYS[2], delayMs, "PX", delayMs)
elseif delayMs > 0 then
  redis.call("DEL", KEYS[2])
end
local time = redis.call("TIME")
return { 1, current, pttl, tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), delayMs }
