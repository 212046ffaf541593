--[[
  Several semaphore releases in one call (decision 0213): what semaphoreRelease-3 does for
  one grant, for each of n grants in order, with the Redis clock read once. The releases are
  independent: each gets its own reply, as if sent one after another with nothing in
  between. Standalone and sentinel only (the keys need not share a slot).

  KEYS[3i-2..3i]   for release i = 1..n: grants key, facts key, watch key (as
                   semaphoreRelease-3)
  ARGV[i]          lockId of release i

  Returns { reply 1, …, reply n }, each exactly semaphoreRelease-3's reply for that release.
]]
-- #include permitRelease
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local replies = {}
for i = 1, #ARGV do
  local k = 3 * i - 2
  replies[i] = permitReleaseOne(KEYS[k], KEYS[k + 1], KEYS[k + 2], ARGV[i], nowMs)
end
return replies
