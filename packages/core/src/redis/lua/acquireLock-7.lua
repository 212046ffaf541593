--[[
  Grants a lease, or re-enters it for the same holder, and mints its fence.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId",
                        expires by PX = lease (grantedAt: Redis clock in ms; renewals: extends)
  KEYS[2]  counter key  hash { e = epoch the counter counts in, n = last counter value }
  KEYS[3]  epoch key    hash { e = fencing epoch, r = master_replid the epoch is bound to }
  KEYS[4]  queue key    zset waiterId -> arrival order (fair calls only; expires by PX)
  KEYS[5]  waiters key  hash waiterId -> heartbeat deadline, Redis clock in ms (likewise)
  KEYS[6]  delay key    string lockDelayMs, PX = lease + lockDelayMs: the lock-delay shadow
                        (docs/decisions/0175); untouched when ARGV[10] is 0
  KEYS[7]  watch key    string, PX: someone was refused this key, so its release must be
                        announced to the other server instances (docs/decisions/0206)

  ARGV[1]  lockId for a new grant (22 chars; ignored on re-entry: the first grant's id stays)
  ARGV[2]  clientId      ARGV[3]  ownerId
  ARGV[4]  leaseMs, integer in 1..ARGV[6]
  ARGV[5]  minEpoch: the lowest epoch this caller accepts (refuse on a node bound lower)
  ARGV[6]  maxLeaseMs, the hard cap (Redis itself would accept a 292 000-year PX)
  ARGV[7]  counterSpan: 2^33, the fence multiplier for the epoch
  ARGV[8]  "" for a plain acquire (queues ignored); for a fair one, the heartbeat in ms:
           how long the caller's place is kept without another call
  ARGV[9]  the fair caller's waiterId, or "" when it only respects the queue
  ARGV[10] lockDelayMs: 0 for none, else 1..60 000 (checked by the caller)

  Returns, with nowMs the Redis server clock in ms since the Unix epoch:
    { 1, lockId, fence, reentry, pttlMs, nowMs, grantedAt, renewals }
                         granted (reentry 1) or re-entered (> 1; grantedAt and renewals
                         are the first grant's)
    { 0, clientId, ownerId, pttlMs, nowMs }        refused: another holder has the key
                                                   (decided before the epoch checks below)
  Every refusal ({ 0 }, { -7 }, { -8 }) marks the watch key.
    { -1 }               leaseMs is not an integer in 1..maxLeaseMs
    { -2, replid }       this node has no epoch bound to its replication id (new or promoted master)
    { -3, epoch }        the node's epoch is below minEpoch
    { -4 }               the counter is exhausted for this epoch; bump the epoch
    { -7 }               fair: the key is free but a live waiter queued before the caller
    { -8, waitMs }       lock-delay: no lease, but the last one ended involuntarily (expired
                         or force-released) less than lockDelayMs ago; waitMs remain. A fair
                         caller's place was kept (and renewed) above, the head's included.
]]
-- #include fence
-- #include queue
-- #include watch
-- #include fair
return fairAcquire(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], ARGV[1],
  ARGV[2], ARGV[3], ARGV[4], ARGV[8], ARGV[9], ARGV[10], tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7]), {})
