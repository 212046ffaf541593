-- The body of a semaphore release, shared by semaphoreRelease-3 (one grant) and
-- semaphoreReleaseBatch-n (several in one call; decision 0213): composed where a script says
-- `-- #include permitRelease` by scripts/gen-lua.mjs. permitReleaseOne(grantsKey, factsKey,
-- watchKey, lockId, nowMs) answers one release as semaphoreRelease-3 documents; nowMs is the
-- Redis clock the script read once.
local function permitReleaseOne(grantsKey, factsKey, watchKey, lockId, nowMs)
  local score = redis.call("ZSCORE", grantsKey, lockId)
  if not score then
    redis.call("HDEL", factsKey, lockId)
    return { -5 }
  end
  local facts = redis.call("HGET", factsKey, lockId)
  if redis.call("ZCARD", grantsKey) == 1 then
    -- The key's only grant: both keys go at once (the facts' total goes with them).
    redis.call("DEL", grantsKey, factsKey)
  else
    redis.call("ZREM", grantsKey, lockId)
    if facts then redis.call("HDEL", factsKey, lockId) end
  end
  if not facts or tonumber(score) <= nowMs then
    return { -5 }
  end
  return { 1, facts, tonumber(score), nowMs, redis.call("DEL", watchKey) }
end
