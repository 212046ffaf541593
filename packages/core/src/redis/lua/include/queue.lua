-- The fair queue's bookkeeping shared by the fair acquire scripts (decision 0009): composed
-- into each script where it says `-- #include queue` by scripts/gen-lua.mjs (decision 0179).

-- Keeps the fair caller's place in a key's queue (queueKey: zset waiterId -> arrival order;
-- waitersKey: hash waiterId -> heartbeat deadline on the Redis clock, ms): drops dead waiters
-- at the head, appends `me` (unless "", a caller that only respects the queue) or renews its
-- place for heartbeatMs, and returns whether a live waiter is ahead of it. The first live
-- entry is the head; nobody else may take a free key.
local function keepPlace(queueKey, waitersKey, me, heartbeatMs, nowMs)
  local head
  while true do
    head = redis.call("ZRANGE", queueKey, 0, 0)[1]
    if not head then break end
    if tonumber(redis.call("HGET", waitersKey, head) or "0") > nowMs then break end
    redis.call("ZREM", queueKey, head)
    redis.call("HDEL", waitersKey, head)
  end
  if me ~= "" then
    if not redis.call("ZSCORE", queueKey, me) then
      local last = redis.call("ZRANGE", queueKey, -1, -1, "WITHSCORES")
      redis.call("ZADD", queueKey, last[2] and (tonumber(last[2]) + 1) or 1, me)
      head = head or me
    end
    redis.call("HSET", waitersKey, me, string.format("%.0f", nowMs + heartbeatMs))
    -- Both keys outlive every live place: each renewal keeps them at least its heartbeat.
    if redis.call("PTTL", queueKey) < heartbeatMs then redis.call("PEXPIRE", queueKey, heartbeatMs) end
    if redis.call("PTTL", waitersKey) < heartbeatMs then redis.call("PEXPIRE", waitersKey, heartbeatMs) end
  end
  return head ~= nil and head ~= me
end

-- A call's place in the key's queue: for a plain call (heartbeatArg ""), none; for a fair one,
-- kept by keepPlace for the heartbeat. Returns placed (false: heartbeatArg is not an integer
-- in 1..maxLeaseMs, the caller answers { -1 }) and whether a live waiter is ahead.
local function fairPlace(queueKey, waitersKey, me, heartbeatArg, maxLeaseMs, nowMs)
  if heartbeatArg == "" then
    return true, false
  end
  local heartbeatMs = tonumber(heartbeatArg)
  if not heartbeatMs or heartbeatMs ~= math.floor(heartbeatMs) or heartbeatMs < 1 or heartbeatMs > maxLeaseMs then
    return false, false
  end
  return true, keepPlace(queueKey, waitersKey, me, heartbeatMs, nowMs)
end
