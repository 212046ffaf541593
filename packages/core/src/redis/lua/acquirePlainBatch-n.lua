--[[
  Several plain acquires in one call (decision 0213): what acquirePlain-5 does for one key,
  for each of n keys in order, with the epoch check and the Redis clock read once. The
  acquires are independent: each gets its own reply, as if sent one after another with
  nothing in between. Standalone and sentinel only (the keys need not share a slot).

  KEYS[1]            epoch key (as acquirePlain-5's KEYS[3]; one for every acquire)
  KEYS[4i-2..4i+1]   for acquire i = 1..n: lock key, counter key, delay key, watch key
                     (acquirePlain-5's KEYS[1], KEYS[2], KEYS[4], KEYS[5])

  ARGV[1]  minEpoch    ARGV[2]  maxLeaseMs    ARGV[3]  counterSpan (as acquirePlain-5)
  ARGV[5i-1..5i+3]   for acquire i: lockId, clientId, ownerId, leaseMs, lockDelayMs

  Returns { reply 1, …, reply n }, each exactly acquirePlain-5's reply for that acquire.
]]
-- #include fence
-- #include watch
-- #include plain
local minEpoch = tonumber(ARGV[1])
local maxLeaseMs = tonumber(ARGV[2])
local span = tonumber(ARGV[3])
local shared = {}
local replies = {}
local n = (#KEYS - 1) / 4
for i = 1, n do
  local k = 4 * i - 2
  local a = 5 * i - 1
  replies[i] = plainAcquire(KEYS[k], KEYS[k + 1], KEYS[1], KEYS[k + 2], KEYS[k + 3], ARGV[a],
    ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], minEpoch, maxLeaseMs, span, shared)
end
return replies
