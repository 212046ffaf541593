-- The body of a read-write acquire, shared by rwAcquire-5 (one key) and rwAcquireBatch-n
-- (several in one call; decision 0213): composed where a script says `-- #include rwGrant`
-- by scripts/gen-lua.mjs, after fence and watch.
--
-- rwAcquireOne(stateKey, counterKey, epochKey, mutexKey, watchKey, mode, lockId, clientId,
-- ownerId, leaseMs, writerPreference, intentMs, minEpoch, maxLeaseMs, span, retainMs, nowMs,
-- shared) answers one acquire as rwAcquire-5 documents. nowMs is the Redis clock the script
-- read once; `shared` is a table the caller keeps for the whole script, where boundEpochOnce
-- keeps the epoch check.
local function rwAcquireOne(stateKey, counterKey, epochKey, mutexKey, watchKey, mode, lockId,
                            clientId, ownerId, leaseArg, preference, intentArg, minEpoch,
                            maxLeaseMs, span, retainMs, nowMs, shared)
  local leaseMs = tonumber(leaseArg)
  local intentMs = tonumber(intentArg)
  local function badMs(v)
    return not v or v ~= math.floor(v) or v < 1 or v > maxLeaseMs
  end
  if (mode ~= "read" and mode ~= "write") or badMs(leaseMs) or badMs(intentMs) then
    return { -1 }
  end
  if redis.call("EXISTS", mutexKey) == 1 then
    return { -8 }
  end

  local me = clientId .. "|" .. ownerId

  -- One pass over the key's state: drop what expired, find the caller's own grant, the
  -- writer, the readers, and other holders' live intents.
  local all = redis.call("HGETALL", stateKey)
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
        redis.call("HDEL", stateKey, field)
      else
        latest = math.max(latest, tonumber(e))
        local grant = { mode = m, fence = f, reentry = r, grantedAt = g, renewals = n,
                        expiresAt = e, clientId = c, ownerId = o, remaining = remaining }
        if c == clientId and o == ownerId then
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
        redis.call("HDEL", stateKey, field)
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
    redis.call("PEXPIRE", stateKey, math.max(latest, untilMs) - nowMs + retainMs)
  end

  local function refuse(reason, retryAfterMs, holders)
    local reply = { 0, reason, math.max(1, retryAfterMs) }
    markWatched(watchKey, reply[3])
    for _, h in ipairs(holders) do
      reply[#reply + 1] = h.clientId
      reply[#reply + 1] = h.ownerId
    end
    if mode == "write" and preference == "1" then
      redis.call("HSET", stateKey, "i:" .. me, string.format("%.0f", nowMs + intentMs))
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
  elseif mode == "read" and preference == "1" and intents > 0 then
    return refuse("writer-waiting", longestRead > 0 and longestRead or soonestIntent, {})
  end

  -- Everything below writes a grant: the same epoch checks as acquireLock (decision 0004).
  local epoch, notBound = boundEpochOnce(shared, epochKey, minEpoch)
  if not epoch then
    return notBound
  end

  if mine then
    -- A re-entry extends the lease but never shortens it.
    local reentry = tonumber(mine.reentry) + 1
    local expiresAt = math.max(tonumber(mine.expiresAt), nowMs + leaseMs)
    redis.call("HSET", stateKey, mineField,
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
  local fence
  if mode == "read" and readFence and math.floor(tonumber(readFence) / span) == epoch then
    fence = tonumber(readFence)
  else
    fence = mintFence(counterKey, epoch, span)
    if not fence then
      return { -4 }
    end
    if mode == "read" then
      redis.call("HSET", stateKey, "R", string.format("%.0f", fence))
    else
      redis.call("HDEL", stateKey, "R")
    end
  end
  local expiresAt = nowMs + leaseMs
  redis.call("HDEL", stateKey, "i:" .. me)
  redis.call("HSET", stateKey, "g:" .. lockId,
    mode .. "|" .. string.format("%.0f", fence) .. "|1|" .. string.format("%.0f", nowMs) .. "|0|"
      .. string.format("%.0f", expiresAt) .. "|" .. clientId .. "|" .. ownerId)
  keepState(expiresAt)
  return { 1, lockId, fence, 1, expiresAt, nowMs, nowMs, 0 }
end
