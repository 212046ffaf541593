-- Blind write guarded by a fencing token: sets fields of a hash only when our fence is
-- newer than the one recorded there (docs/design.md#fenced-writes). Fences are canonical decimal
-- strings of up to 20 digits, compared by length then text (Lua numbers are doubles).
--
-- KEYS[1]  the hash holding the data and the fence
-- ARGV[1]  name of the fence field            ARGV[2]  name of the lock-id field
-- ARGV[3]  our fence                          ARGV[4]  our lockId
-- ARGV[5..] field, value, field, value, ...   (the write)
--
-- Returns { outcome, current fence }:
--   "applied"   written; the hash now records our fence
--   "duplicate" our fence is recorded already: this write (a retry) was done before
--   "stale"     a newer fence is recorded: an older holder must stop, never retry
local function compare(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end

local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local order = compare(current, ARGV[3])
  if order > 0 then return { 'stale', current } end
  if order == 0 then return { 'duplicate', current } end
end
local fields = { ARGV[1], ARGV[3], ARGV[2], ARGV[4] }
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
return { 'applied', ARGV[3] }
