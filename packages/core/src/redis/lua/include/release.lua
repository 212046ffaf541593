-- The body of a mutex release, shared by releaseLock-3 (one key) and releaseLockBatch-n
-- (several in one call; decision 0213): composed where a script says `-- #include release`
-- by scripts/gen-lua.mjs. releaseOne(leaseKey, delayKey, watchKey, lockId) answers one
-- release as releaseLock-3 documents.
local function releaseOne(leaseKey, delayKey, watchKey, lockId)
  local current = redis.call("GET", leaseKey)
  if not current then
    return { -5 }
  end
  local id, fence, reentry, rest = string.match(current, "^([^|]*)|([^|]*)|([^|]*)|(.*)$")
  if id ~= lockId then
    return { -6 }
  end
  local remaining = tonumber(reentry) - 1
  if remaining > 0 then
    redis.call("SET", leaseKey, id .. "|" .. fence .. "|" .. remaining .. "|" .. rest, "KEEPTTL")
    return { 1, remaining, current, 0 }
  end
  redis.call("DEL", leaseKey, delayKey)
  return { 1, 0, current, redis.call("DEL", watchKey) }
end
