--[[
  Releases one entry of a lease held under lockId; the key is deleted when the last
  entry goes, and with it the key's lock-delay shadow: a voluntary release starts no delay.
  Nothing changes when lockId does not hold the key.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId"
  KEYS[2]  delay key    the lock-delay shadow (acquirePlain-4.lua), usually absent
  ARGV[1]  lockId

  Returns:
    { 1, remainingEntries, value }   released one entry; 0 means the key is now free;
                                     value is the lease as it was before this release
    { -5 }                    no lease: it expired or was released
    { -6 }                    the key is held under another lockId
]]
local current = redis.call("GET", KEYS[1])
if not current then
  return { -5 }
end
local id, fence, reentry, rest = string.match(current, "^([^|]*)|([^|]*)|([^|]*)|(.*)$")
if id ~= ARGV[1] then
  return { -6 }
end
local remaining = tonumber(reentry) - 1
if remaining > 0 then
  redis.call("SET", KEYS[1], id .. "|" .. fence .. "|" .. remaining .. "|" .. rest, "KEEPTTL")
  return { 1, remaining, current }
end
redis.call("DEL", KEYS[1], KEYS[2])
return { 1, 0, current }
