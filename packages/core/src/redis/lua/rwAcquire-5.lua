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
local mode = ARGV[1]
local leaseMs = tonumber(ARGV[5])
local maxLeaseMs = tonumber(ARGV[7])
local intentMs = tonumber(ARGV[10])
local function badMs(v)
  return not v or v ~= math.floor(v) or v < 1 or v > maxLeaseMs
end
if (mode ~= "read" and mode ~= "write") or badMs(leaseMs) or badMs(intentMs) then
  return { -1 }
end
if redis.call("EXISTS", KEYS[4]) == 1 then
  return { -8 }
end

local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local retainMs = tonumber(ARGV[11])
local me = ARGV[3] .. "|" .. ARGV[4]

-- One pass over the key's state: drop what expired, find the caller's own grant, the
-- writer, the readers, and other holders' live intents.
local all = redis.call("HGETALL", KEYS[1])
local readFence
local mineField, mine
local writer
local readers = {}
local longestRead = 0
local intents, soonestIntent = 0, nil
local latest = nowMs
for i = 1, #all, 2 do
  local field, value = all[i], all[i + 1]
  local kind = string.sub(field, 1, 2)
  if field == "R" then
    readFence = value
  elseif kind == "g:" then
    local m, f, r, g, n, e, c, o =
      string.match(value, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$")
    local remaining = tonumber(e) - nowMs
    if remaining <= 0 then
      redis.call("HDEL", KEYS[1], field)
    else
      latest = math.max(latest, tonumber(e))
      local grant = { mode = m, fence = f, reentry = r, grantedAt = g, renewals = n,
                      expiresAt = e, clientId = c, ownerId = o, remaining = remaining }
      if c == ARGV[3] and o == ARGV[4] then
        mineField, mine = field, grant
      end
      if m == "write" then
        writer = grant
      else
        readers[#readers + 1] = grant
        longestRead = math.max(longestRead, remaining)
      end
    end
  elseif kind == "i:" then
    local remaining = tonumber(value) - nowMs
    if remaining <= 0 then
      redis.call("HDEL", KEYS[1], field)
    else
      latest = math.max(latest, tonumber(value))
      if string.sub(field, 3) ~= me then
        intents = intents + 1
        soonestIntent = math.min(soonestIntent or remaining, remaining)
      end
    end
  end
end

local function keepState(untilMs)
  redis.call("PEXPIRE", KEYS[1], math.max(latest, untilMs) - nowMs + retainMs)
end

local function refuse(reason, retryAfterMs, holders)
  local reply = { 0, reason, math.max(1, retryAfterMs) }
  markWatched(KEYS[5], reply[3])
  for _, h in ipairs(holders) do
    reply[#reply + 1] = h.clientId
    reply[#reply + 1] = h.ownerId
  end
  if mode == "write" and ARGV[9] == "1" then
    redis.call("HSET", KEYS[1], "i:" .. me, string.format("%.0f", nowMs + intentMs))
    keepState(nowMs + intentMs)
  end
  return reply
end

-- Refusals first: they mint nothing, so they need no epoch check.
if mine then
  if mine.mode ~= mode then
    return { -9 }
  end
elseif writer then
  return refuse("write-held", writer.remaining, { writer })
elseif mode == "write" and #readers > 0 then
  return refuse("read-held", longestRead, readers)
elseif mode == "read" and ARGV[9] == "1" and intents > 0 then
  return refuse("writer-waiting", longestRead > 0 and longestRead or soonestIntent, {})
end

-- Everything below writes a grant: the same epoch checks as acquireLock (decision 0004).
local epoch, notBound = boundEpoch(KEYS[3], tonumber(ARGV[6]))
if not epoch then
  return notBound
end

if mine then
  -- A re-entry extends the lease but never shortens it.
  local reentry = tonumber(mine.reentry) + 1
  local expiresAt = math.max(tonumber(mine.expiresAt), nowMs + leaseMs)
  redis.call("HSET", KEYS[1], mineField,
    mine.mode .. "|" .. mine.fence .. "|" .. reentry .. "|" .. mine.grantedAt .. "|" .. mine.renewals
      .. "|" .. string.format("%.0f", expiresAt) .. "|" .. mine.clientId .. "|" .. mine.ownerId)
  keepState(expiresAt)
  return { 1, string.sub(mineField, 3), tonumber(mine.fence), reentry, expiresAt, nowMs,
           tonumber(mine.grantedAt), tonumber(mine.renewals) }
end

-- The fence: a reader joins the read generation of this epoch if there is one; a writer,
-- or the first reader after a write, takes a fresh fence from the shard's counter, which
-- exceeds every fence the key had (the counter only grows within an epoch, and a new
-- epoch exceeds every fence of the older ones).
local span = tonumber(ARGV[8])
local fence
if mode == "read" and readFence and math.floor(tonumber(readFence) / span) == epoch then
  fence = tonumber(readFence)
else
  fence = mintFence(KEYS[2], epoch, span)
  if not fence then
    return { -4 }
  end
  if mode == "read" then
    redis.call("HSET", KEYS[1], "R", string.format("%.0f", fence))
  else
    redis.call("HDEL", KEYS[1], "R")
  end
end
local expiresAt = nowMs + leaseMs
redis.call("HDEL", KEYS[1], "i:" .. me)
redis.call("HSET", KEYS[1], "g:" .. ARGV[2],
  mode .. "|" .. string.format("%.0f", fence) .. "|1|" .. string.format("%.0f", nowMs) .. "|0|"
    .. string.format("%.0f", expiresAt) .. "|" .. ARGV[3] .. "|" .. ARGV[4])
keepState(expiresAt)
return { 1, ARGV[2], fence, 1, expiresAt, nowMs, nowMs, 0 }
