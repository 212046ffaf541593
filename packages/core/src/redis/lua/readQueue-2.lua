--[[
  Reads a key's fair queue: its live places from the head, in arrival order. Writes
  nothing (dead places are skipped here and dropped by the next fair acquire).

  KEYS[1]  queue key    zset waiterId -> arrival order
  KEYS[2]  waiters key  hash waiterId -> heartbeat deadline, Redis clock in ms
  ARGV[1]  at most this many places, a positive integer

  Returns, with nowMs the Redis server clock in ms since the Unix epoch:
    { 1, nowMs, waiterId1, arrival1, deadline1, waiterId2, ... }   (none: { 1, nowMs })
    { -1 }   ARGV[1] is not a positive integer
]]
local limit = tonumber(ARGV[1])
if not limit or limit ~= math.floor(limit) or limit < 1 then
  return { -1 }
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local reply = { 1, nowMs }
local places = redis.call("ZRANGE", KEYS[1], 0, -1, "WITHSCORES")
local found = 0
for i = 1, #places, 2 do
  if found >= limit then break end
  local deadline = tonumber(redis.call("HGET", KEYS[2], places[i]) or "0")
  if deadline > nowMs then
    found = found + 1
    reply[#reply + 1] = places[i]
    reply[#reply + 1] = tonumber(places[i + 1])
    reply[#reply + 1] = deadline
  end
end
return reply
