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
local leaseMs = tonumber(ARGV[4])
local maxLeaseMs = tonumber(ARGV[6])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
  return { -1 }
end

local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- The key's queue (fair calls only): drop dead waiters at its head, append or renew the
-- caller's place, and see whether a live waiter is ahead of it. The first live entry is
-- the head; nobody else may take the free key.
local fair = ARGV[8] ~= ""
local me = ARGV[9]
local queued = false
if fair then
  local heartbeatMs = tonumber(ARGV[8])
  if not heartbeatMs or heartbeatMs ~= math.floor(heartbeatMs) or heartbeatMs < 1 or heartbeatMs > maxLeaseMs then
    return { -1 }
  end
  queued = keepPlace(KEYS[4], KEYS[5], me, heartbeatMs, nowMs)
end

-- A refusal first: it mints no fence and writes nothing but the watch mark (and the queue
-- place above), so it needs no epoch check (and on a contended key most calls are refusals).
local current = redis.call("GET", KEYS[1])
local id, fence, reentry, grantedAt, renewals, clientId, ownerId
if current then
  id, fence, reentry, grantedAt, renewals, clientId, ownerId =
    string.match(current, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$")
  if clientId ~= ARGV[2] or ownerId ~= ARGV[3] then
    local pttl = redis.call("PTTL", KEYS[1])
    markWatched(KEYS[7], pttl)
    return { 0, clientId, ownerId, pttl, nowMs }
  end
end
local delayMs = tonumber(ARGV[10])
if not current and delayMs > 0 then
  local waitMs = redis.call("PTTL", KEYS[6])
  if waitMs > 0 then
    markWatched(KEYS[7], waitMs)
    return { -8, waitMs }
  end
end
if not current and queued then
  markWatched(KEYS[7], 0)
  return { -7 }
end

-- Everything below writes. A promoted replica carries the old master's epoch record but has
-- a new replication id: refusing here closes the window before the store notices the
-- failover (docs/decisions/0004).
local epoch, notBound = boundEpoch(KEYS[3], tonumber(ARGV[5]))
if not epoch then
  return notBound
end

-- A grant or a re-entry uses up the fair caller's place.
local function leaveQueue()
  if fair and me ~= "" then
    redis.call("ZREM", KEYS[4], me)
    redis.call("HDEL", KEYS[5], me)
  end
end

if current then
  leaveQueue()
  reentry = tonumber(reentry) + 1
  -- A re-entry extends the lease but never shortens it.
  local keepMs = math.max(redis.call("PTTL", KEYS[1]), leaseMs)
  redis.call("SET", KEYS[1],
    id .. "|" .. fence .. "|" .. reentry .. "|" .. grantedAt .. "|" .. renewals .. "|" .. clientId .. "|" .. ownerId,
    "PX", keepMs)
  if delayMs > 0 then
    redis.call("SET", KEYS[6], delayMs, "PX", keepMs + delayMs)
  end
  return { 1, id, tonumber(fence), reentry, keepMs, nowMs, tonumber(grantedAt), tonumber(renewals) }
end

local minted = mintFence(KEYS[2], epoch, tonumber(ARGV[7]))
if not minted then
  return { -4 }
end
leaveQueue()
redis.call("SET", KEYS[1],
  ARGV[1] .. "|" .. string.format("%.0f", minted) .. "|1|" .. string.format("%.0f", nowMs) .. "|0|" .. ARGV[2] .. "|" .. ARGV[3],
  "PX", leaseMs)
if delayMs > 0 then
  -- The shadow outlives the lease by the delay: it is what remains after an expiry.
  redis.call("SET", KEYS[6], delayMs, "PX", leaseMs + delayMs)
end
return { 1, ARGV[1], minted, 1, leaseMs, nowMs, nowMs, 0 }
