--[[
  Read-write lock: an operator's removal of every grant of the key, or only lockId's.
  Intents and the read fence stay.

  KEYS[1]  state key (see rwAcquire-5.lua)
  ARGV[1]  lockId, or "" for every grant

  Returns { nowMs, value1, value2, ... }: the live grants removed, each prefixed by its
  lockId ("lockId|mode|fence|...").
]]
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local reply = { nowMs }
local all = redis.call("HGETALL", KEYS[1])
for i = 1, #all, 2 do
  local field, value = all[i], all[i + 1]
  if string.sub(field, 1, 2) == "g:" and (ARGV[1] == "" or field == "g:" .. ARGV[1]) then
    redis.call("HDEL", KEYS[1], field)
    local e = string.match(value, "^[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|([^|]*)|")
    if tonumber(e) > nowMs then
      reply[#reply + 1] = string.sub(field, 3) .. "|" .. value
    end
  end
end
return reply
