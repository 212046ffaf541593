--[[
  Reads a lease and its remaining time in one step; with no lease, the lock-delay left.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId"
  KEYS[2]  delay key    the lock-delay shadow (acquirePlain-5.lua): lockDelayMs, or absent

  Returns:
    { 1, value, pttlMs, nowMs }   a live lease
    { 0 }                         no lease, no delay in force
    { -8, waitMs, nowMs, untilMs } no lease, but a lock-delay in force for waitMs more, ending
                                  at untilMs: the shadow's expiry instant, so every read of one
                                  delay answers the same untilMs (nowMs + PTTL can differ by a
                                  millisecond between two reads, as TIME and PTTL read the clock
                                  apart). PEXPIRETIME needs Redis 7; older servers fall back to
                                  nowMs + waitMs.
]]
local current = redis.call("GET", KEYS[1])
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if not current then
  local waitMs = redis.call("PTTL", KEYS[2])
  if waitMs > 0 then
    local untilMs = redis.pcall("PEXPIRETIME", KEYS[2])
    if type(untilMs) ~= "number" or untilMs <= 0 then
      untilMs = nowMs + waitMs
    end
    return { -8, waitMs, nowMs, untilMs }
  end
  return { 0 }
end
return { 1, current, redis.call("PTTL", KEYS[1]), nowMs }
