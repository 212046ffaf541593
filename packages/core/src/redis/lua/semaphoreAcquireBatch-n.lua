--[[
  Several fair semaphore acquires (or tries that respect a fair key's queue) in one call
  (decision 0226): what semaphoreAcquire-7 does for one key, for each of n keys in order,
  with the epoch check and the Redis clock read once. The acquires are independent: each
  gets its own reply, as if sent one after another with nothing in between (two waiters of
  one key queue in the order they come). Standalone and sentinel only (the keys need not
  share a slot).

  KEYS[1]            epoch key (as semaphoreAcquire-7's KEYS[4]; one for every acquire)
  KEYS[6i-4..6i+1]   for acquire i = 1..n: grants key, facts key, counter key, queue key,
                     waiters key, watch key (semaphoreAcquire-7's KEYS[1..3], KEYS[5..7])

  ARGV[1]  minEpoch    ARGV[2]  maxLeaseMs    ARGV[3]  counterSpan
  ARGV[4]  maxTotalPermits (as semaphoreAcquire-7's ARGV[5], [6], [7], [12])
  ARGV[9i-4..9i+4]   for acquire i: lockId, clientId, ownerId, leaseMs, permits,
                     totalPermits, permits held on another tier, heartbeatMs ("" for none),
                     waiterId (semaphoreAcquire-7's ARGV[1..4], [8..11], [13])

  Returns { reply 1, …, reply n }, each exactly semaphoreAcquire-7's reply for that acquire.
]]
-- #include fence
-- #include queue
-- #include permits
-- #include watch
-- #include permitFair
local minEpoch = tonumber(ARGV[1])
local maxLeaseMs = tonumber(ARGV[2])
local span = tonumber(ARGV[3])
local maxTotal = tonumber(ARGV[4])
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local shared = {}
local replies = {}
local n = (#KEYS - 1) / 6
for i = 1, n do
  local k = 6 * i - 4
  local a = 9 * i - 4
  replies[i] = permitAcquireFair(KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[1], KEYS[k + 3],
    KEYS[k + 4], KEYS[k + 5], ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4],
    ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], minEpoch, maxLeaseMs, span, maxTotal,
    nowMs, shared)
end
return replies
