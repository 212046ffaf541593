--[[
  Read-write lock: withdraws one holder's writer intent (a writer that stopped waiting
  without a grant), so new readers are not held back until it lapses. Grants, the read
  fence and other holders' intents stay; the key keeps its expiry (never too short: it
  covered this intent too). Removing the last field removes the key, as any HDEL does.

  KEYS[1]  state key (see rwAcquire-5.lua)
  ARGV[1]  clientId              ARGV[2]  ownerId

  Returns:
    { 1 }   the holder had a live intent; it is gone
    { 0 }   it had none (never registered, granted since, or lapsed; a lapsed one is removed)
]]
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local field = "i:" .. ARGV[1] .. "|" .. ARGV[2]
local deadline = redis.call("HGET", KEYS[1], field)
if not deadline then
  return { 0 }
end
redis.call("HDEL", KEYS[1], field)
if tonumber(deadline) > nowMs then
  return { 1 }
end
return { 0 }
