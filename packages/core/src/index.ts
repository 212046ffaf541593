export * from "./errors/index.js";
export type {
  Tier,
  Holder,
  LockKey,
  LeaseView,
  Grant,
  Refusal,
  AcquireResult,
} from "./store/types.js";
export type {
  LockStore,
  AcquireInput,
  ReleaseInput,
  ReleaseResult,
  ExtendInput,
  ListInput,
  LeasePage,
  ForceReleaseInput,
} from "./store/lock-store.js";
export { LIMITS } from "./store/limits.js";
export { newLockId } from "./store/lock-id.js";
export {
  validateResource,
  validateLockKey,
  validateHolder,
  validateLeaseMs,
  validateLockId,
  validateWaitReplicas,
  validatePageSize,
} from "./validation/validate.js";
export {
  FENCE_LAYOUT,
  composeFence,
  parseFence,
  splitFence,
  compareFences,
} from "./fence/fence-layout.js";
export type { EpochSource } from "./fence/epoch-source.js";
export type { StoreEvent, LockEvent, EpochEvent, EventSink } from "./events/store-event.js";
export { writeTogetherThisTurn } from "./io/write-together.js";
export { RedisLockStore } from "./redis/redis-lock-store.js";
export { REDIS_STORE_DEFAULTS, type RedisLockStoreOptions } from "./redis/redis-store-options.js";
export type { RedisTopology, RedisAddress } from "./redis/topology.js";
export { LocalLockStore } from "./local/local-lock-store.js";
export { MysqlLockStore } from "./mysql/mysql-lock-store.js";
export { MYSQL_STORE_DEFAULTS, type MysqlLockStoreOptions } from "./mysql/mysql-store-options.js";
export { MysqlEpochSource } from "./mysql/mysql-epoch-source.js";
export {
  MysqlLeaseSweeper,
  SWEEPER_DEFAULTS,
  type MysqlLeaseSweeperOptions,
} from "./mysql/mysql-lease-sweeper.js";
export { TieredLocks, type ResourcePolicy, type FencedStore } from "./tier/tiered-locks.js";
export { openTieredLocks, type OpenTieredLocksOptions } from "./tier/open-tiered-locks.js";
export { TIER_CONTROLLER_DEFAULTS, type TierControllerOptions } from "./tier/tier-controller.js";
export type { TierSnapshot, TierTransitionRow } from "./tier/tier-snapshot.js";
export { LeaseMirror, type LeaseMirrorOptions } from "./tier/lease-mirror.js";
