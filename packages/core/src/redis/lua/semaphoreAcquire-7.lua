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
  The body is include/permitFair.lua, shared with semaphoreAcquireBatch-n.lua.

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
-- #include permitFair
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return permitAcquireFair(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], ARGV[1],
  ARGV[2], ARGV[3], ARGV[4], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[13], tonumber(ARGV[5]),
  tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[12]), nowMs, {})
