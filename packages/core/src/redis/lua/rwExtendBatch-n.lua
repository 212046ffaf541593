--[[
  Several read-write grant extends in one call (decision 0213): what rwExtend-1 does for one
  grant, for each of n grants in order, with the Redis clock read once. The extends are
  independent: each gets its own reply, as if sent one after another with nothing in
  between. Standalone and sentinel only (the keys need not share a slot).

  KEYS[i]          for extend i = 1..n: state key (as rwExtend-1)
  ARGV[1]          maxLeaseMs   ARGV[2]  retainMs (as rwExtend-1's ARGV[3] and ARGV[4])
  ARGV[2i+1..2i+2] for extend i: lockId, leaseMs

  Returns { reply 1, …, reply n }, each exactly rwExtend-1's reply for that extend.
]]
-- #include rwExtend
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local maxLeaseMs = tonumber(ARGV[1])
local retainMs = tonumber(ARGV[2])
local replies = {}
for i = 1, #KEYS do
  replies[i] = rwExtendOne(KEYS[i], ARGV[2 * i + 1], ARGV[2 * i + 2], maxLeaseMs, retainMs, nowMs)
end
return replies
