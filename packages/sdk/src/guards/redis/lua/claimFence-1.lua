-- Read-modify-write, step 1: claims a hash for our fence and lockId BEFORE the caller reads
-- it. From then on an older holder's write fails (claimedSet-1 checks the claim), so it
-- cannot land between our read and our write.
--
-- KEYS[1]  the hash
-- ARGV[1]  name of the fence field            ARGV[2]  name of the lock-id field
-- ARGV[3]  our fence                          ARGV[4]  our lockId
--
-- Returns { outcome, current fence }:
--   "applied"   claimed now
--   "duplicate" already claimed by this very lock (a retry)
--   "stale"     a newer fence is recorded: stop, never retry
local function compare(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end

local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local order = compare(current, ARGV[3])
  if order > 0 then return { 'stale', current } end
  if order == 0 then
    if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[4] then return { 'duplicate', current } end
    return { 'stale', current }
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3], ARGV[2], ARGV[4])
return { 'applied', ARGV[3] }
