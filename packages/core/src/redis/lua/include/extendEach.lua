-- The loop of the two-key extend batches (extendLockBatch-n, semaphoreExtendBatch-n;
-- decision 0213): composed where a script says `-- #include extendEach`. Reads the Redis
-- clock once, then answers each extend i with extendOne(KEYS[2i-1], KEYS[2i], ARGV[2i],
-- ARGV[2i+1], maxLeaseMs = ARGV[1], nowMs), in order.
local function extendEach(extendOne)
  local time = redis.call("TIME")
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local maxLeaseMs = tonumber(ARGV[1])
  local replies = {}
  for i = 1, #KEYS / 2 do
    local k = 2 * i - 1
    replies[i] = extendOne(KEYS[k], KEYS[k + 1], ARGV[2 * i], ARGV[2 * i + 1], maxLeaseMs, nowMs)
  end
  return replies
end
