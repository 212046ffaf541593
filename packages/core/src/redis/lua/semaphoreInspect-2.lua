--[[
  Reads a semaphore's live grants in one step (docs/decisions/0160); changes nothing.

  KEYS[1]  grants key   zset lockId -> expiry (Redis clock, ms)
  KEYS[2]  facts key    hash lockId -> "permits|fence|grantedAt|renewals|clientId|ownerId", t -> total

  Returns:
    { nowMs, total or "", lockId1, expiresAt1, facts1, lockId2, … }   live grants, soonest expiry first
]]
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local out = { nowMs, redis.call("HGET", KEYS[2], "t") or "" }
local live = redis.call("ZRANGEBYSCORE", KEYS[1], "(" .. string.format("%.0f", nowMs), "+inf", "WITHSCORES")
for i = 1, #live, 2 do
  local facts = redis.call("HGET", KEYS[2], live[i])
  if facts then
    out[#out + 1] = live[i]
    out[#out + 1] = tonumber(live[i + 1])
    out[#out + 1] = facts
  end
end
return out
