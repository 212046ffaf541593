--[[
  Several plain semaphore acquires in one call (decision 0213): what semaphoreAcquirePlain-5
  does for one key, for each of n keys in order, with the epoch check and the Redis clock
  read once. The acquires are independent: each gets its own reply, as if sent one after
  another with nothing in between. Standalone and sentinel only (the keys need not share a
  slot).

  KEYS[1]            epoch key (as semaphoreAcquirePlain-5's KEYS[4]; one for every acquire)
  KEYS[4i-2..4i+1]   for acquire i = 1..n: grants key, facts key, counter key, watch key
                     (semaphoreAcquirePlain-5's KEYS[1], KEYS[2], KEYS[3], KEYS[5])

  ARGV[1]  minEpoch    ARGV[2]  maxLeaseMs    ARGV[3]  counterSpan
  ARGV[4]  maxTotalPermits (as semaphoreAcquirePlain-5's ARGV[5], [6], [7], [11])
  ARGV[7i-2..7i+4]   for acquire i: lockId, clientId, ownerId, leaseMs, permits,
                     totalPermits, permits held on another tier

  Returns { reply 1, …, reply n }, each exactly semaphoreAcquirePlain-5's reply for that
  acquire.
]]
-- #include fence
-- #include permits
-- #include watch
-- #include permitPlain
local minEpoch = tonumber(ARGV[1])
local maxLeaseMs = tonumber(ARGV[2])
local span = tonumber(ARGV[3])
local maxTotal = tonumber(ARGV[4])
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local shared = {}
local replies = {}
local n = (#KEYS - 1) / 4
for i = 1, n do
  local k = 4 * i - 2
  local a = 7 * i - 2
  replies[i] = permitAcquirePlain(KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[1], KEYS[k + 3],
    ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6],
    minEpoch, maxLeaseMs, span, maxTotal, nowMs, shared)
end
return replies
