-- A semaphore key's grants, shared by semaphoreAcquire-7.lua and semaphoreAcquirePlain-5.lua
-- (docs/decisions/0160, 0198): composed where a script says `-- #include permits` by
-- scripts/gen-lua.mjs (decision 0179).

-- True when the acquire's numbers are integers in range: leaseMs in 1..maxLeaseMs, total in
-- 1..maxTotal, permits in 1..total, elsewhere (permits held on another tier) at least 0.
local function permitArgsValid(leaseMs, maxLeaseMs, permits, total, maxTotal, elsewhere)
  if not leaseMs or leaseMs ~= math.floor(leaseMs) or leaseMs < 1 or leaseMs > maxLeaseMs then
    return false
  end
  if not total or total ~= math.floor(total) or total < 1 or total > maxTotal then
    return false
  end
  if not permits or permits ~= math.floor(permits) or permits < 1 or permits > total then
    return false
  end
  return elsewhere ~= nil and elsewhere == math.floor(elsewhere) and elsewhere >= 0
end

-- Reclaims the grants whose lease ended (grantsKey: zset lockId -> expiry; factsKey: hash
-- lockId -> "permits|…") before anything is counted: nothing else reclaims them. Returns
-- the permits the live grants hold and, soonest expiry first, each grant's { permits,
-- remaining ms }. One ZRANGE reads expired and live grants together (scores ascending).
local function livePermits(grantsKey, factsKey, nowMs)
  local all = redis.call("ZRANGE", grantsKey, 0, -1, "WITHSCORES")
  local inUse = 0
  local held = {}
  local expired = 0
  for i = 1, #all, 2 do
    local remaining = tonumber(all[i + 1]) - nowMs
    if remaining <= 0 then
      redis.call("HDEL", factsKey, all[i])
      expired = expired + 1
    else
      local facts = redis.call("HGET", factsKey, all[i])
      local p = facts and tonumber(string.match(facts, "^([^|]*)|")) or 0
      inUse = inUse + p
      held[#held + 1] = { p, remaining }
    end
  end
  if expired > 0 then
    redis.call("ZREMRANGEBYSCORE", grantsKey, "-inf", nowMs)
  end
  return inUse, held
end

-- How long until enough of the held grants end for `needed` more permits (0: never).
local function retryAfterMs(held, needed)
  local freed = 0
  for _, g in ipairs(held) do
    freed = freed + g[1]
    if freed >= needed then
      return g[2]
    end
  end
  return 0
end

-- Writes the grant: its expiry in grantsKey, its facts ("permits|fence|grantedAt|renewals|
-- clientId|ownerId") and the total it named in factsKey. Both keys live as long as their
-- last grant: with no other live grant this one is the last, so both get exactly its lease
-- (the facts hash may outlive reclaimed grants' entries with a longer TTL; none of them is
-- live); otherwise a key's TTL only ever grows.
local function writeGrant(grantsKey, factsKey, lockId, permits, fence, nowMs, clientId, ownerId, total, leaseMs, othersLive)
  redis.call("ZADD", grantsKey, string.format("%.0f", nowMs + leaseMs), lockId)
  redis.call("HSET", factsKey, lockId,
    permits .. "|" .. string.format("%.0f", fence) .. "|" .. string.format("%.0f", nowMs) .. "|0|" .. clientId .. "|" .. ownerId,
    "t", total)
  if not othersLive then
    redis.call("PEXPIRE", grantsKey, leaseMs)
    redis.call("PEXPIRE", factsKey, leaseMs)
    return
  end
  if redis.call("PTTL", grantsKey) < leaseMs then redis.call("PEXPIRE", grantsKey, leaseMs) end
  if redis.call("PTTL", factsKey) < leaseMs then redis.call("PEXPIRE", factsKey, leaseMs) end
end
