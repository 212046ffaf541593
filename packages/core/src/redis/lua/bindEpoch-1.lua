--[[
  Binds a freshly minted fencing epoch to this node's replication id, so that acquireLock
  mints fences from it. Each epoch is minted for one binding, so an epoch is never shared
  by two replication histories (a zombie master and its successor never share one).

  KEYS[1]  epoch key    hash { e = fencing epoch, r = master_replid }
  ARGV[1]  epoch, minted durably just before this call

  Returns:
    { 1, epoch }    bound ARGV[1]
    { 0, epoch }    already bound to this replication id at a higher epoch (another server
                    won the race); nothing changed, and that epoch is fine to use
]]
local info = redis.call("INFO", "replication")
local replid = string.match(info, "master_replid:(%w+)")
local bound = redis.call("HMGET", KEYS[1], "e", "r")
local wanted = tonumber(ARGV[1])
if bound[1] and bound[2] == replid and tonumber(bound[1]) >= wanted then
  return { 0, tonumber(bound[1]) }
end
redis.call("HSET", KEYS[1], "e", wanted, "r", replid)
return { 1, wanted }
