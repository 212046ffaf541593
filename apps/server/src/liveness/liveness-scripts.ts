/**
 * The Lua scripts of the fleet's connection records (docs/decisions/0150). Every key shares
 * the hash tag `{live}`, so on a Redis Cluster each script runs on one node and one slot.
 * KEYS[1] is always the set of instance ids (it routes the script); ARGV[1] is the key
 * prefix the other keys are built from:
 *
 * - `<p>insts`        SET of instance ids that wrote records;
 * - `<p>up:<inst>`    the instance is alive (PX ttl, refreshed by its beat);
 * - `<p>on:<inst>`    SET of `tenant \n clientId` with a lock connection on that instance;
 * - `<p>gone`         ZSET `tenant \n clientId` → since when (ms, Redis clock) no instance
 *                     has a connection of it.
 *
 * "Connected" means: on the `on:` set of an instance whose `up:` key exists. A killed
 * instance's `up:` key lapses, so its clients stop counting as connected without anyone
 * cleaning up; the sweep then moves them to `gone`.
 */

// Shared helpers, prepended to each script.
const PRELUDE = `
local p = ARGV[1]
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function elsewhere(member, except)
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    if id ~= except and redis.call('EXISTS', p .. 'up:' .. id) == 1
      and redis.call('SISMEMBER', p .. 'on:' .. id, member) == 1 then
      return true
    end
  end
  return false
end
local function markGone(member, now, except)
  if not elsewhere(member, except) then
    redis.call('ZADD', p .. 'gone', 'NX', now, member)
  end
end
`;

/** ARGV: prefix, instance, ttlMs, member. A connection of `member` opened on `instance`. */
export const CONNECT_LUA = `${PRELUDE}
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('SET', p .. 'up:' .. ARGV[2], '1', 'PX', ARGV[3])
redis.call('SADD', p .. 'on:' .. ARGV[2], ARGV[4])
redis.call('ZREM', p .. 'gone', ARGV[4])
return 1
`;

/**
 * ARGV: prefix, instance, member. The last connection of `member` on `instance` closed:
 * gone from now unless another live instance has one. 1 when it became gone.
 */
export const DISCONNECT_LUA = `${PRELUDE}
redis.call('SREM', p .. 'on:' .. ARGV[2], ARGV[3])
if elsewhere(ARGV[3], ARGV[2]) then return 0 end
redis.call('ZADD', p .. 'gone', 'NX', nowMs(), ARGV[3])
return 1
`;

/**
 * ARGV: prefix, instance, ttlMs, resync ('0' | '1'), members... The instance's beat. With
 * resync, its `on:` set becomes exactly `members` (those dropped become gone, those present
 * are not gone). Returns 0 when the instance's record had lapsed or been swept and no resync
 * was asked: the caller resyncs at once.
 */
export const BEAT_LUA = `${PRELUDE}
local up = p .. 'up:' .. ARGV[2]
local known = redis.call('SISMEMBER', KEYS[1], ARGV[2]) == 1 and redis.call('EXISTS', up) == 1
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('SET', up, '1', 'PX', ARGV[3])
if ARGV[4] == '1' then
  local on = p .. 'on:' .. ARGV[2]
  local want = {}
  for i = 5, #ARGV do want[ARGV[i]] = true end
  local now = nowMs()
  for _, m in ipairs(redis.call('SMEMBERS', on)) do
    if not want[m] then
      redis.call('SREM', on, m)
      markGone(m, now, ARGV[2])
    end
  end
  for i = 5, #ARGV do
    redis.call('SADD', on, ARGV[i])
    redis.call('ZREM', p .. 'gone', ARGV[i])
  end
  return 1
end
if known then return 1 end
return 0
`;

/** ARGV: prefix, instance. A clean shutdown: the instance's clients are gone unless elsewhere. */
export const LEAVE_LUA = `${PRELUDE}
local on = p .. 'on:' .. ARGV[2]
redis.call('DEL', p .. 'up:' .. ARGV[2])
redis.call('SREM', KEYS[1], ARGV[2])
local now = nowMs()
for _, m in ipairs(redis.call('SMEMBERS', on)) do markGone(m, now, ARGV[2]) end
redis.call('DEL', on)
return 1
`;

/**
 * ARGV: prefix, limit. Moves the clients of instances whose record lapsed (killed) to gone
 * as of now, drops those instances, and returns { now, [member, since, ...] } (oldest first,
 * at most `limit`), `now` on Redis's clock.
 */
export const SWEEP_LUA = `${PRELUDE}
local now = nowMs()
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', p .. 'up:' .. id) == 0 then
    local on = p .. 'on:' .. id
    for _, m in ipairs(redis.call('SMEMBERS', on)) do markGone(m, now, id) end
    redis.call('DEL', on)
    redis.call('SREM', KEYS[1], id)
  end
end
return { now, redis.call('ZRANGE', p .. 'gone', 0, tonumber(ARGV[2]) - 1, 'WITHSCORES') }
`;

/**
 * ARGV: prefix, member, since. 1 while `member` is still gone since `since` and connected
 * nowhere: the check right before each release (a reconnect removed or replaced the entry).
 */
export const STILL_GONE_LUA = `${PRELUDE}
local score = redis.call('ZSCORE', p .. 'gone', ARGV[2])
if not score or tonumber(score) ~= tonumber(ARGV[3]) then return 0 end
if elsewhere(ARGV[2], '') then return 0 end
return 1
`;

/** ARGV: prefix, member, since. Forgets a gone entry once handled (only that period's). */
export const FORGET_LUA = `${PRELUDE}
local score = redis.call('ZSCORE', p .. 'gone', ARGV[2])
if score and tonumber(score) == tonumber(ARGV[3]) then
  redis.call('ZREM', p .. 'gone', ARGV[2])
  return 1
end
return 0
`;

/** KEYS[1]: the sweeper key; ARGV: id, ttlMs. Takes or keeps the sweeper's lease; 1 if ours. */
export const LEAD_LUA = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

/** KEYS[1]: the sweeper key; ARGV: id. Gives the sweeper's lease up if it is ours. */
export const RESIGN_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
