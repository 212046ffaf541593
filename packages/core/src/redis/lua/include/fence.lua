-- Fence minting shared by every acquire script (decision 0004): composed into each script
-- where it says `-- #include fence` by scripts/gen-lua.mjs (decision 0179). A script calls
-- boundEpoch before anything it writes, and mintFence for each fresh fence.

-- The epoch this node may grant at: the one in its epoch record (epochKey, a hash { e =
-- epoch, r = master_replid }) when the record is bound to this node's own replication id
-- (a promoted replica has a new one) and is at least minEpoch. Otherwise nil and the reply
-- the caller returns: { -2, replid } (not bound here) or { -3, epoch } (bound below the floor).
local function boundEpoch(epochKey, minEpoch)
  local replid = string.match(redis.call("INFO", "replication"), "master_replid:(%w+)")
  local bound = redis.call("HMGET", epochKey, "e", "r")
  if not bound[1] or bound[2] ~= replid then
    return nil, { -2, replid or "" }
  end
  local epoch = tonumber(bound[1])
  if epoch < minEpoch then
    return nil, { -3, epoch }
  end
  return epoch
end

-- boundEpoch once per script: a script that answers several acquires (decision 0213) keeps
-- the answer in `shared`, a table it passes to each. Nothing a script does changes the epoch
-- record or the node's replication id, so the first answer holds for the whole script.
local function boundEpochOnce(shared, epochKey, minEpoch)
  if not shared.bound then
    shared.bound = true
    shared.epoch, shared.notBound = boundEpoch(epochKey, minEpoch)
  end
  return shared.epoch, shared.notBound
end

-- The next fence of a shard's counter (counterKey, a hash { e = the epoch it counts in, n =
-- its last value }) in epoch: epoch * span + n, with n restarting at 1 in a new epoch. Writes
-- the counter. nil when the counter ran out in this epoch (the caller returns { -4 }).
local function mintFence(counterKey, epoch, span)
  local counter = redis.call("HMGET", counterKey, "e", "n")
  local n = 1
  if counter[1] and tonumber(counter[1]) == epoch then
    n = tonumber(counter[2]) + 1
  end
  if n >= span then
    return nil
  end
  redis.call("HSET", counterKey, "e", epoch, "n", n)
  return epoch * span + n
end
