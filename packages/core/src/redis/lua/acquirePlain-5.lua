--[[
  acquireLock-7.lua for a plain (not fair) acquire: grants a lease, or re-enters it for the
  same holder, and mints its fence. A plain acquire ignores the key's fair queue, so this
  script has no queue keys and no queue arguments; everything else (the refusal before the
  epoch checks, the lock-delay, the epoch binding, the fence counter, the lease layout) is
  acquireLock-7's.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId",
                        expires by PX = lease (grantedAt: Redis clock in ms; renewals: extends)
  KEYS[2]  counter key  hash { e = epoch the counter counts in, n = last counter value }
  KEYS[3]  epoch key    hash { e = fencing epoch, r = master_replid the epoch is bound to }
  KEYS[4]  delay key    string lockDelayMs, PX = lease + lockDelayMs: the lock-delay shadow
                        (docs/decisions/0175); untouched when ARGV[8] is 0 (the caller may
                        then pass the lock key again)
  KEYS[5]  watch key    string, PX: someone was refused this key, so its release must be
                        announced to the other server instances (docs/decisions/0206)

  ARGV[1]  lockId for a new grant (22 chars; ignored on re-entry: the first grant's id stays)
  ARGV[2]  clientId      ARGV[3]  ownerId
  ARGV[4]  leaseMs, integer in 1..ARGV[6]
  ARGV[5]  minEpoch: the lowest epoch this caller accepts (refuse on a node bound lower)
  ARGV[6]  maxLeaseMs, the hard cap (Redis itself would accept a 292 000-year PX)
  ARGV[7]  counterSpan: 2^33, the fence multiplier for the epoch
  ARGV[8]  lockDelayMs: 0 for none, else 1..60 000 (checked by the caller)

  Returns, with nowMs the Redis server clock in ms since the Unix epoch:
    { 1, fence, nowMs }  granted: a new lease under ARGV[1] with PX = leaseMs, reentry 1,
                         grantedAt = nowMs, no renewals (the caller knows the rest)
    { 1, fence, nowMs, lockId, reentry, pttlMs, grantedAt, renewals }
                         re-entered (reentry > 1; lockId, grantedAt and renewals are the
                         first grant's)
    { 0, clientId, ownerId, pttlMs }   refused: another holder has the key (decided before
                                       the epoch checks below); marks the watch key
    { -1 }               leaseMs is not an integer in 1..maxLeaseMs
    { -2, replid }       this node has no epoch bound to its replication id (new or promoted master)
    { -3, epoch }        the node's epoch is below minEpoch
    { -4 }               the counter is exhausted for this epoch; bump the epoch
    { -8, waitMs }       lock-delay: no lease, but the last one ended involuntarily (expired
                         or force-released) less than lockDelayMs ago; waitMs remain
]]
-- #include fence
-- #include watch
local leaseMs = tonumber(ARGV[4])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > tonumber(ARGV[6]) then
  return { -1 }
end

-- A refusal first: it mints no fence and writes nothing but the watch mark, so it needs no
-- epoch check (and on a contended key most calls are refusals).
local current = redis.call("GET", KEYS[1])
local id, fence, reentry, grantedAt, renewals, clientId, ownerId
if current then
  id, fence, reentry, grantedAt, renewals, clientId, ownerId =
    string.match(current, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$")
  if clientId ~= ARGV[2] or ownerId ~= ARGV[3] then
    local pttl = redis.call("PTTL", KEYS[1])
    markWatched(KEYS[5], pttl)
    return { 0, clientId, ownerId, pttl }
  end
end
local delayMs = tonumber(ARGV[8])
if delayMs > 0 and not current then
  local waitMs = redis.call("PTTL", KEYS[4])
  if waitMs > 0 then
    markWatched(KEYS[5], waitMs)
    return { -8, waitMs }
  end
end

-- Everything below writes. A promoted replica carries the old master's epoch record but has
-- a new replication id: refusing here closes the window before the store notices the
-- failover (docs/decisions/0004).
local epoch, notBound = boundEpoch(KEYS[3], tonumber(ARGV[5]))
if not epoch then
  return notBound
end

local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

if current then
  reentry = tonumber(reentry) + 1
  -- A re-entry extends the lease but never shortens it.
  local keepMs = math.max(redis.call("PTTL", KEYS[1]), leaseMs)
  redis.call("SET", KEYS[1],
    id .. "|" .. fence .. "|" .. reentry .. "|" .. grantedAt .. "|" .. renewals .. "|" .. clientId .. "|" .. ownerId,
    "PX", keepMs)
  if delayMs > 0 then
    redis.call("SET", KEYS[4], delayMs, "PX", keepMs + delayMs)
  end
  return { 1, tonumber(fence), nowMs, id, reentry, keepMs, tonumber(grantedAt), tonumber(renewals) }
end

local minted = mintFence(KEYS[2], epoch, tonumber(ARGV[7]))
if not minted then
  return { -4 }
end
redis.call("SET", KEYS[1],
  ARGV[1] .. "|" .. string.format("%.0f", minted) .. "|1|" .. string.format("%.0f", nowMs) .. "|0|" .. ARGV[2] .. "|" .. ARGV[3],
  "PX", leaseMs)
if delayMs > 0 then
  -- The shadow outlives the lease by the delay: it is what remains after an expiry.
  redis.call("SET", KEYS[4], delayMs, "PX", leaseMs + delayMs)
end
return { 1, minted, nowMs }
