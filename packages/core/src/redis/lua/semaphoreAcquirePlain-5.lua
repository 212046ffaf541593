--[[
  semaphoreAcquire-7.lua for a plain (not fair) acquire: grants permits of a counting
  semaphore and mints the grant's fence. A plain acquire ignores the key's fair queue, so
  this script takes neither the queue keys nor the queue arguments; everything else (the
  reclaim of expired grants, the count, the refusal before the epoch checks, the epoch
  binding, the fence counter, the grant's layout) is semaphoreAcquire-7's
  (docs/decisions/0160, 0198).

  KEYS[1]  grants key   zset lockId -> expiry (Redis clock, ms); expires with its last grant
  KEYS[2]  facts key    hash lockId -> "permits|fence|grantedAt|renewals|clientId|ownerId",
                        and t -> the total the latest acquire named; expires with KEYS[1]
  KEYS[3]  counter key  hash { e, n }: the shard's fence counter, shared with the mutex
  KEYS[4]  epoch key    hash { e = fencing epoch, r = master_replid the epoch is bound to }
  KEYS[5]  watch key    the watch mark (include/watch.lua), set on a refusal

  ARGV[1]  lockId of the new grant (22 chars)
  ARGV[2]  clientId      ARGV[3]  ownerId
  ARGV[4]  leaseMs, integer in 1..ARGV[6]
  ARGV[5]  minEpoch: the lowest epoch this caller accepts
  ARGV[6]  maxLeaseMs
  ARGV[7]  counterSpan: 2^33
  ARGV[8]  permits asked for, integer in 1..ARGV[9]
  ARGV[9]  totalPermits, integer in 1..ARGV[11]
  ARGV[10] permits held on another tier, counted as in use (0 outside a tier switch)
  ARGV[11] maxTotalPermits

  Returns, with nowMs the Redis server clock in ms:
    { 1, fence, inUse, nowMs }            granted under ARGV[1] for ARGV[4] ms; inUse
                                          counts this grant
    { 0, inUse, retryAfterMs, nowMs }     refused: not enough permits free (marks the key
                                          watched for retryAfterMs + 5 s, decision 0206)
    { -1 }               leaseMs, permits or totalPermits out of range
    { -2, replid }       no epoch bound to this node's replication id
    { -3, epoch }        the node's epoch is below minEpoch
    { -4 }               the counter is exhausted for this epoch
]]
-- #include fence
-- #include permits
-- #include watch
-- #include permitPlain
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return permitAcquirePlain(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1], ARGV[2],
  ARGV[3], ARGV[4], ARGV[8], ARGV[9], ARGV[10], tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7]), tonumber(ARGV[11]), nowMs, {})
