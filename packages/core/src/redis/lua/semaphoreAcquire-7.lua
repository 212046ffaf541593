--[[
  Grants permits of a counting semaphore and mints the grant's fence (docs/decisions/0160).

  KEYS[1]  grants key   zset lockId -> expiry (Redis clock, ms); expires with its last grant
  KEYS[2]  facts key    hash lockId -> "permits|fence|grantedAt|renewals|clientId|ownerId",
                        and t -> the total the latest acquire named; expires with KEYS[1]
  KEYS[3]  counter key  hash { e, n }: the shard's fence counter, shared with the mutex
  KEYS[4]  epoch key    hash { e = fencing epoch, r = master_replid the epoch is bound to }
  KEYS[5]  queue key    zset waiterId -> arrival order (fair calls only; expires by PX)
  KEYS[6]  waiters key  hash waiterId -> heartbeat deadline, Redis clock in ms (likewise)
  KEYS[7]  watch key    the watch mark (include/watch.lua), set on every refusal

  ARGV[1]  lockId of the new grant (22 chars)
  ARGV[2]  clientId      ARGV[3]  ownerId
  ARGV[4]  leaseMs, integer in 1..ARGV[6]
  ARGV[5]  minEpoch: the lowest epoch this caller accepts
  ARGV[6]  maxLeaseMs
  ARGV[7]  counterSpan: 2^33
  ARGV[8]  permits asked for, integer in 1..ARGV[9]
  ARGV[9]  totalPermits, integer in 1..ARGV[12]
  ARGV[10] permits held on another tier, counted as in use (0 outside a tier switch)
  ARGV[11] "" for a plain acquire; for a fair one, the heartbeat in ms
  ARGV[12] maxTotalPermits
  ARGV[13] the fair caller's waiterId, or "" when it only respects the queue

  Expired grants are removed first, inside this script: nothing else reclaims them. A plain
  (not fair) acquire runs semaphoreAcquirePlain-5.lua instead, which takes no queue keys.

  Returns, with nowMs the Redis server clock in ms:
    { 1, lockId, fence, inUse, leaseMs, nowMs }   granted; inUse counts this grant
    { 0, inUse, retryAfterMs, nowMs }             refused: not enough permits free
    { -1 }               leaseMs, permits or totalPermits out of range
    { -2, replid }       no epoch bound to this node's replication id
    { -3, epoch }        the node's epoch is below minEpoch
    { -4 }               the counter is exhausted for this epoch
    { -7, inUse }        fair: enough permits are free but a live waiter queued first
  Both refusals mark the key watched (decision 0206): for retryAfterMs + 5 s, or 5 s when
  queued behind a waiter.
]]
-- #include fence
-- #include queue
-- #include permits
-- #include watch
local leaseMs = tonumber(ARGV[4])
local maxLeaseMs = tonumber(ARGV[6])
local permits = tonumber(ARGV[8])
local total = tonumber(ARGV[9])
if not permitArgsValid(leaseMs, maxLeaseMs, permits, total, tonumber(ARGV[12]), tonumber(ARGV[10])) then
  return { -1 }
end

local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local inUse, held = livePermits(KEYS[1], KEYS[2], nowMs)

-- The key's queue (fair calls only), kept as for the mutex (acquireLock-7.lua).
local fair = ARGV[11] ~= ""
local me = ARGV[13]
local queued = false
if fair then
  local heartbeatMs = tonumber(ARGV[11])
  if not heartbeatMs or heartbeatMs ~= math.floor(heartbeatMs) or heartbeatMs < 1 or heartbeatMs > maxLeaseMs then
    return { -1 }
  end
  queued = keepPlace(KEYS[5], KEYS[6], me, heartbeatMs, nowMs)
end

-- A refusal writes nothing but the watch mark and mints no fence, so it needs no epoch check.
local needed = inUse + tonumber(ARGV[10]) + permits - total
if needed > 0 then
  local retryMs = retryAfterMs(held, needed)
  markWatched(KEYS[7], retryMs)
  return { 0, inUse, retryMs, nowMs }
end
if queued then
  markWatched(KEYS[7], 0)
  return { -7, inUse }
end

local epoch, notBound = boundEpoch(KEYS[4], tonumber(ARGV[5]))
if not epoch then
  return notBound
end

local minted = mintFence(KEYS[3], epoch, tonumber(ARGV[7]))
if not minted then
  return { -4 }
end
if fair and me ~= "" then
  redis.call("ZREM", KEYS[5], me)
  redis.call("HDEL", KEYS[6], me)
end
writeGrant(KEYS[1], KEYS[2], ARGV[1], ARGV[8], minted, nowMs, ARGV[2], ARGV[3], ARGV[9], leaseMs, #held > 0)
return { 1, ARGV[1], minted, inUse + permits, leaseMs, nowMs }
