--[[
  Gives up a fair waiter's place in a key's queue (a cancelled wait).

  KEYS[1]  queue key    zset waiterId -> arrival order
  KEYS[2]  waiters key  hash waiterId -> heartbeat deadline
  ARGV[1]  waiterId

  Returns:
    { 1 }   the waiter had a place and left it
    { 0 }   it had none (never queued, already granted, or dropped as dead)
]]
local removed = redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
return { removed }
