--[[
  Releases one entry of a lease held under lockId; the key is deleted when the last
  entry goes, and with it the key's lock-delay shadow: a voluntary release starts no delay.
  Nothing changes when lockId does not hold the key.

  KEYS[1]  lock key     string "lockId|fence|reentry|grantedAt|renewals|clientId|ownerId"
  KEYS[2]  delay key    the lock-delay shadow (acquirePlain-5.lua), usually absent
  KEYS[3]  watch key    the watch mark (include/watch.lua), present while a caller refused
                        the key may still be waiting for its release
  ARGV[1]  lockId

  Returns:
    { 1, remainingEntries, value, watched }
                              released one entry; 0 means the key is now free; value is the
                              lease as it was before this release; watched is 1 when the key
                              is now free and its watch mark was there (it is removed), else 0
    { -5 }                    no lease: it expired or was released
    { -6 }                    the key is held under another lockId
]]
-- #include release
return releaseOne(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
