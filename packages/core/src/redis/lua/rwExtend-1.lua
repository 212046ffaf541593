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
-- #include rwExtend
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return rwExtendOne(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), nowMs)
