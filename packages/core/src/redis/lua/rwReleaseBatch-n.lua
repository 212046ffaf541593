--[[
  Several read-write releases in one call (decision 0213): what rwRelease-2 does for one
  grant, for each of n grants in order, with the Redis clock read once. The releases are
  independent: each gets its own reply, as if sent one after another with nothing in
  between. Standalone and sentinel only (the keys need not share a slot).

  KEYS[2i-1..2i]   for release i = 1..n: state key, watch key (as rwRelease-2)
  ARGV[i]          lockId of release i

  Returns { reply 1, …, reply n }, each exactly rwRelease-2's reply for that release.
]]
-- #include rwRelease
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local replies = {}
for i = 1, #ARGV do
  local k = 2 * i - 1
  replies[i] = rwReleaseOne(KEYS[k], KEYS[k + 1], ARGV[i], nowMs)
end
return replies
