--[[
  Removes a lease whatever its re-entry count: an operator's release, or the cleanup of a
  grant whose reply was lost or was not acknowledged by enough replicas.

  KEYS[1]  lock key     string "lockId|fence|reentry|clientId|ownerId"
  ARGV[1]  lockId to match, or "" to remove whoever holds the key

  Returns:
    { 1, value, pttlMs, nowMs }   removed; value is what was stored
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
local time = redis.call("TIME")
return { 1, current, pttl, tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
