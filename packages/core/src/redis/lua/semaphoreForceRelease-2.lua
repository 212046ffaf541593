--[[
  Removes live semaphore grants whatever their holder: an operator's release, or the cleanup
  of a grant whose reply was lost (docs/decisions/0160).

  KEYS[1]  grants key   zset lockId -> expiry (Redis clock, ms)
  KEYS[2]  facts key    hash lockId -> "permits|fence|grantedAt|renewals|clientId|ownerId"
  ARGV[1]  lockId to remove, or "" for every grant of the key

  Returns:
    { nowMs, lockId1, expiresAt1, facts1, … }   what was removed (live grants only)
]]
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ids
if ARGV[1] == "" then
  ids = redis.call("ZRANGE", KEYS[1], 0, -1)
else
  ids = { ARGV[1] }
end
local out = { nowMs }
for _, id in ipairs(ids) do
  local score = redis.call("ZSCORE", KEYS[1], id)
  local facts = redis.call("HGET", KEYS[2], id)
  if score then redis.call("ZREM", KEYS[1], id) end
  if facts then redis.call("HDEL", KEYS[2], id) end
  if score and facts and tonumber(score) > nowMs then
    out[#out + 1] = id
    out[#out + 1] = tonumber(score)
    out[#out + 1] = facts
  end
end
if redis.call("ZCARD", KEYS[1]) == 0 then redis.call("DEL", KEYS[2]) end
return out
