--[[
  Several mutex releases in one call (decision 0213): what releaseLock-3 does for one key,
  for each of n keys in order. The releases are independent: each gets its own reply, as if
  sent one after another with nothing in between. Standalone and sentinel only (the keys
  need not share a slot).

  KEYS[3i-2..3i]   for release i = 1..n: lock key, delay key, watch key (as releaseLock-3)
  ARGV[i]          lockId of release i

  Returns { reply 1, …, reply n }, each exactly releaseLock-3's reply for that release.
]]
-- #include release
local replies = {}
for i = 1, #ARGV do
  local k = 3 * i - 2
  replies[i] = releaseOne(KEYS[k], KEYS[k + 1], KEYS[k + 2], ARGV[i])
end
return replies
