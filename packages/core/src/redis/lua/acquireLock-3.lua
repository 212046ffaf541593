--[[
  Grants a lease, or re-enters it for the same holder, and mints its fence.

  KEYS[1]  lock key     string "lockId|fence|reentry|clientId|ownerId", expires by PX = lease
  KEYS[2]  counter key  hash { e = epoch the counter counts in, n = last counter value }
  KEYS[3]  epoch key    hash { e = fencing epoch, r = master_replid the epoch is bound to }

  ARGV[1]  lockId for a new grant (22 chars; ignored on re-entry: the first grant's id stays)
  ARGV[2]  clientId      ARGV[3]  ownerId
  ARGV[4]  leaseMs, integer in 1..ARGV[6]
  ARGV[5]  minEpoch: the lowest epoch this caller accepts (refuse on a node bound lower)
  ARGV[6]  maxLeaseMs, the hard cap (Redis itself would accept a 292 000-year PX)
  ARGV[7]  counterSpan: 2^33, the fence multiplier for the epoch

  Returns, with nowMs the Redis server clock in ms since the Unix epoch:
    { 1, lockId, fence, reentry, pttlMs, nowMs }   granted (reentry 1) or re-entered (> 1)
    { 0, clientId, ownerId, pttlMs, nowMs }        refused: another holder has the key
    { -1 }               leaseMs is not an integer in 1..maxLeaseMs
    { -2, replid }       this node has no epoch bound to its replication id (new or promoted master)
    { -3, epoch }        the node's epoch is below minEpoch
    { -4 }               the counter is exhausted for this epoch; bump the epoch
]]
local leaseMs = tonumber(ARGV[4])
local maxLeaseMs = tonumber(ARGV[6])
if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
  return { -1 }
end

-- A promoted replica carries the old master's epoch record but has a new replication id:
-- refusing here closes the window before the store notices the failover.
local info = redis.call("INFO", "replication")
local replid = string.match(info, "master_replid:(%w+)")
local bound = redis.call("HMGET", KEYS[3], "e", "r")
if not bound[1] or bound[2] ~= replid then
  return { -2, replid or "" }
end
local epoch = tonumber(bound[1])
if epoch < tonumber(ARGV[5]) then
  return { -3, epoch }
end

local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local current = redis.call("GET", KEYS[1])
if current then
  local id, fence, reentry, clientId, ownerId =
    string.match(current, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$")
  local pttl = redis.call("PTTL", KEYS[1])
  if clientId ~= ARGV[2] or ownerId ~= ARGV[3] then
    return { 0, clientId, ownerId, pttl, nowMs }
  end
  reentry = tonumber(reentry) + 1
  -- A re-entry extends the lease but never shortens it.
  local keepMs = math.max(pttl, leaseMs)
  redis.call("SET", KEYS[1], id .. "|" .. fence .. "|" .. reentry .. "|" .. clientId .. "|" .. ownerId, "PX", keepMs)
  return { 1, id, tonumber(fence), reentry, keepMs, nowMs }
end

local counter = redis.call("HMGET", KEYS[2], "e", "n")
local n = 0
if counter[1] and tonumber(counter[1]) == epoch then
  n = tonumber(counter[2])
end
n = n + 1
local span = tonumber(ARGV[7])
if n >= span then
  return { -4 }
end
redis.call("HSET", KEYS[2], "e", epoch, "n", n)
local fence = epoch * span + n
redis.call("SET", KEYS[1], ARGV[1] .. "|" .. string.format("%.0f", fence) .. "|1|" .. ARGV[2] .. "|" .. ARGV[3], "PX", leaseMs)
return { 1, ARGV[1], fence, 1, leaseMs, nowMs }
