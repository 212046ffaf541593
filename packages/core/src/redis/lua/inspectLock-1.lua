--[[
  Reads a lease and its remaining time in one step.

  KEYS[1]  lock key     string "lockId|fence|reentry|clientId|ownerId"

  Returns:
    { 1, value, pttlMs, nowMs }   a live lease
    { 0 }                         no lease
]]
local current = redis.call("GET", KEYS[1])
if not current then
  return { 0 }
end
local time = redis.call("TIME")
return { 1, current, redis.call("PTTL", KEYS[1]), tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
