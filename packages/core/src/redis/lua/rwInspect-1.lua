--[[
  Read-write lock: the key's state as it is now, read-only.

  KEYS[1]  state key (see rwAcquire-5.lua)

  Returns { nowMs, field1, value1, field2, value2, ... } (expired entries included; the
  caller drops them by nowMs).
]]
local time = redis.call("TIME")
local reply = { tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
local all = redis.call("HGETALL", KEYS[1])
for i = 1, #all do
  reply[#reply + 1] = all[i]
end
return reply
