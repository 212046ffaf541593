--[[
  Read-write lock: grants a read or a write, re-enters it for the same holder, or refuses
  (and then, for a writer with writer preference, registers its intent). Expired grants
  and intents are dropped on the way. See docs/decisions/0165.

  KEYS[1]  state key    hash, expires by PX = its latest grant or intent + retainMs:
                          "g:<lockId>"         "mode|fence|reentry|grantedAt|renewals|expiresAt|clientId|ownerId"
                          "i:<clientId>|<ownerId>"  writer intent deadline (ms, Redis clock)
                          "R"                  the read generation's fence (none after a write)
  KEYS[2]  counter key  hash { e, n }: the shard's fence counter, shared with acquireLock
  KEYS[3]  epoch key    hash { e, r }: the node's epoch record, shared with acquireLock
  KEYS[4]  mutex key    the same key's plain lease (acquireLock's KEYS[1]); never written
  KEYS[5]  watch key    the key's watch mark (include/watch.lua, the mutex's own), set on
                        every refusal

  ARGV[1]  "read" | "write"      ARGV[2]  lockId for a new grant
  ARGV[3]  clientId              ARGV[4]  ownerId
  ARGV[5]  leaseMs, integer in 1..ARGV[7]
  ARGV[6]  minEpoch              ARGV[7]  maxLeaseMs
  ARGV[8]  counterSpan (2^33)
  ARGV[9]  "1" writer preference, "0" without
  ARGV[10] intentMs, integer in 1..ARGV[7]
  ARGV[11] retainMs: how long the key's state (its read fence) outlives its last grant

  Returns, with nowMs the Redis clock in ms:
    { 1, lockId, fence, reentry, expiresAt, nowMs, grantedAt, renewals }   granted or re-entered
    { 0, reason, retryAfterMs, clientId1, ownerId1, clientId2, ... }       refused; marks
                    the key watched for retryAfterMs + 5 s (decision 0206)
    { -1 }          leaseMs or intentMs out of range, or an unknown mode
    { -2, replid }  the node has no epoch bound to its replication id
    { -3, epoch }   the node's epoch is below minEpoch
    { -4 }          the counter is exhausted for this epoch
    { -8 }          the key is held as a mutex (nothing written)
    { -9 }          the holder holds the key in the other mode (nothing written)
]]
-- #include fence
-- #include watch
-- #include rwGrant
local time = redis.call("TIME")
return rwAcquireOne(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1], ARGV[2], ARGV[3],
  ARGV[4], ARGV[5], ARGV[9], ARGV[10], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]),
  tonumber(ARGV[11]), tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), {})
