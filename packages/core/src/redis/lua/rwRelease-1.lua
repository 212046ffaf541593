--[[
  Read-write lock: releases one entry of the grant lockId; the grant goes when its last
  entry goes. Nothing changes when lockId holds nothing live on the key. The key's state
  (its read fence) keeps its expiry.

  KEYS[1]  state key (see rwAcquire-4.lua)
  ARGV[1]  lockId

  Returns:
    { 1, remainingEntries, value }   released one entry; value is the grant before it
    { -5 }                           no live grant under lockId
]]
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local field = "g:" .. ARGV[1]
local value = redis.call("HGET", KEYS[1], field)
if not value then
  return { -5 }
end
local m, f, r, rest = string.match(value, "^([^|]*)|([^|]*)|([^|]*)|(.*)$")
local e = string.match(rest, "^[^|]*|[^|]*|([^|]*)|")
if tonumber(e) <= nowMs then
  redis.call("HDEL", KEYS[1], field)
  return { -5 }
end
local remaining = tonumber(r) - 1
if remaining > 0 then
  redis.call("HSET", KEYS[1], field, m .. "|" .. f .. "|" .. remaining .. "|" .. rest)
else
  redis.call("HDEL", KEYS[1], field)
end
return { 1, remaining, value }
