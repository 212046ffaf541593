export { redisFencedSet } from "./redis-fenced-set.js";
export { redisClaimFence } from "./redis-claim-fence.js";
export { redisClaimedSet } from "./redis-claimed-set.js";
export {
  REDIS_GUARD_FIELDS,
  type RedisGuardFields,
  type RedisGuardTarget,
  type RedisWriteTarget,
  type RedisScriptHost,
} from "./redis-guard-types.js";
