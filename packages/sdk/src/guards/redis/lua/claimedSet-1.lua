-- Read-modify-write, step 2: writes fields only while the hash still carries our claim
-- (our fence AND our lockId), in one atomic step.
--
-- KEYS[1]  the hash
-- ARGV[1]  name of the fence field            ARGV[2]  name of the lock-id field
-- ARGV[3]  our fence                          ARGV[4]  our lockId
-- ARGV[5..] field, value, field, value, ...   (the write)
--
-- Returns { outcome, current fence }:
--   "applied"   written under our claim
--   "stale"     a newer holder claimed the hash: stop, never retry
--   "unclaimed" the hash does not carry our claim and no newer one: claim it first
local function compare(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end

local current = redis.call('HGET', KEYS[1], ARGV[1])
if current == ARGV[3] and redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[4] then
  local fields = {}
  for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
  if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
  return { 'applied', current }
end
if current and compare(current, ARGV[3]) >= 0 then return { 'stale', current } end
return { 'unclaimed', current or '' }
