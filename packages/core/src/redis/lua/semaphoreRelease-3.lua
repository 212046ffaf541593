--[[
  Releases one semaphore grant (docs/decisions/0160).

  KEYS[1]  grants key   zset lockId -> expiry (Redis clock, ms)
  KEYS[2]  facts key    hash lockId -> "permits|fence|grantedAt|renewals|clientId|ownerId"
  KEYS[3]  watch key    the watch mark (include/watch.lua), present while a caller refused
                        permits may still be waiting for a release
  ARGV[1]  lockId

  Returns:
    { 1, facts, expiresAt, nowMs, watched }
                              released; facts and expiry as they were; watched is 1 when the
                              key's watch mark was there (it is removed: every release frees
                              permits a refused caller may take), else 0
    { -5 }                           no live grant of that lockId (expired, released, unknown)
]]
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local score = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not score then
  redis.call("HDEL", KEYS[2], ARGV[1])
  return { -5 }
end
local facts = redis.call("HGET", KEYS[2], ARGV[1])
if redis.call("ZCARD", KEYS[1]) == 1 then
  -- The key's only grant: both keys go at once (the facts' total goes with them).
  redis.call("DEL", KEYS[1], KEYS[2])
else
  redis.call("ZREM", KEYS[1], ARGV[1])
  if facts then redis.call("HDEL", KEYS[2], ARGV[1]) end
end
if not facts or tonumber(score) <= nowMs then
  return { -5 }
end
return { 1, facts, tonumber(score), nowMs, redis.call("DEL", KEYS[3]) }
