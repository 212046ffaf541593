-- The body of a read-write release, shared by rwRelease-2 (one grant) and rwReleaseBatch-n
-- (several in one call; decision 0213): composed where a script says `-- #include rwRelease`
-- by scripts/gen-lua.mjs. rwReleaseOne(stateKey, watchKey, lockId, nowMs) answers one
-- release as rwRelease-2 documents; nowMs is the Redis clock the script read once.
local function rwReleaseOne(stateKey, watchKey, lockId, nowMs)
  local field = "g:" .. lockId
  local value = redis.call("HGET", stateKey, field)
  if not value then
    return { -5 }
  end
  local m, f, r, rest = string.match(value, "^([^|]*)|([^|]*)|([^|]*)|(.*)$")
  local e = string.match(rest, "^[^|]*|[^|]*|([^|]*)|")
  if tonumber(e) <= nowMs then
    redis.call("HDEL", stateKey, field)
    return { -5 }
  end
  local remaining = tonumber(r) - 1
  if remaining > 0 then
    redis.call("HSET", stateKey, field, m .. "|" .. f .. "|" .. remaining .. "|" .. rest)
    return { 1, remaining, value, 0 }
  end
  redis.call("HDEL", stateKey, field)
  return { 1, 0, value, redis.call("DEL", watchKey) }
end
