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
-- #include permitRelease
local time = redis.call("TIME")
return permitReleaseOne(KEYS[1], KEYS[2], KEYS[3], ARGV[1],
  tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
