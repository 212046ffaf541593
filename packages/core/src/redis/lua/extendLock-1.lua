--[[
  Sets the remaining lease of the grant lockId to leaseMs from now (store clock).

  KEYS[1]  lock key     string "lockId|fence|reentry|clientId|ownerId"
  ARGV[1]  lockId
  ARGV[2]  leaseMs, integer in 1..ARGV[3]
  ARGV[3]  maxLeaseMs

  Returns:
    { 1, value, leaseMs, nowMs }   extended; value is the stored lease string
    { -1 }                         leaseMs out of range
    { -5 }                         no lease: it expired or was released
    { -6 }                         the key is held under another lockId
]]
local leaseMs = tonumber(ARGV[2])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > tonumber(ARGV[3]) then
  return { -1 }
end
local current = redis.call("GET", KEYS[1])
if not current then
  return { -5 }
end
if string.match(current, "^([^|]*)|") ~= ARGV[1] then
  return { -6 }
end
redis.call("PEXPIRE", KEYS[1], leaseMs)
local time = redis.call("TIME")
return { 1, current, leaseMs, tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
