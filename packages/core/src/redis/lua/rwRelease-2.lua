--[[
  Read-write lock: releases one entry of the grant lockId; the grant goes when its last
  entry goes. Nothing changes when lockId holds nothing live on the key. The key's state
  (its read fence) keeps its expiry.

  KEYS[1]  state key (see rwAcquire-5.lua)
  KEYS[2]  watch key    the watch mark (include/watch.lua), present while a caller refused
                        the key may still be waiting for a release
  ARGV[1]  lockId

  Returns:
    { 1, remainingEntries, value, watched }
                              released one entry; value is the grant before it; watched is 1
                              when the grant is gone (its last entry released) and the watch
                              mark was there (it is removed), else 0
    { -5 }                           no live grant under lockId
]]
-- #include rwRelease
local time = redis.call("TIME")
return rwReleaseOne(KEYS[1], KEYS[2], ARGV[1],
  tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
