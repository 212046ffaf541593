--[[
  Read-write lock: releases one entry of the grant lockId; the grant goes when its last
  entry goes. Nothing changes when lockId holds nothing live on the key. The key's state
  (its read fence) keeps its expiry.

  KEYS[1]  state key (see rwAcquire-5.lua)
  KEYS[2]  watch key    the watch mark (include/watch.lua), present while a caller refused
                        the key may still be waiting for a release
  ARGV[1]  lockId

  Returns:
    { 1, remainingEntries, value, watched }
                              released one entry; value is the grant before it; watched is 1
                              when the grant is gone (its last entry released) and the watch
                              mark was there (it is removed), else 0
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
  return { 1, remaining, value, 0 }
end
redis.call("HDEL", KEYS[1], field)
return { 1, 0, value, redis.call("DEL", KEYS[2]) }
