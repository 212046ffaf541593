--[[
  Read-write lock: sets the remaining lease of the grant lockId to leaseMs from now (Redis
  clock) and counts the renewal.

  KEYS[1]  state key (see rwAcquire-5.lua)
  ARGV[1]  lockId     ARGV[2]  leaseMs, integer in 1..ARGV[3]
  ARGV[3]  maxLeaseMs ARGV[4]  retainMs

  Returns:
    { 1, value, nowMs }   extended; value is the grant as now stored
    { -1 }                leaseMs out of range
    { -5 }                no live grant under lockId
]]
local leaseMs = tonumber(ARGV[2])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > tonumber(ARGV[3]) then
  return { -1 }
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local field = "g:" .. ARGV[1]
local value = redis.call("HGET", KEYS[1], field)
if not value then
  return { -5 }
end
local head, n, e, tail = string.match(value, "^([^|]*|[^|]*|[^|]*|[^|]*|)([^|]*)|([^|]*)(|.*)$")
if tonumber(e) <= nowMs then
  redis.call("HDEL", KEYS[1], field)
  return { -5 }
end
local expiresAt = nowMs + leaseMs
local updated = head .. (tonumber(n) + 1) .. "|" .. string.format("%.0f", expiresAt) .. tail
redis.call("HSET", KEYS[1], field, updated)
local keep = leaseMs + tonumber(ARGV[4])
if redis.call("PTTL", KEYS[1]) < keep then
  redis.call("PEXPIRE", KEYS[1], keep)
end
return { 1, updated, nowMs }
