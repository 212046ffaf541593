// Errors, limits, validation, fence layout and the lock types live in @warden/contract (the
// wire contract shared with the server, SDK and console); core re-exports them for its callers.
export * from "@warden/contract";
export type {
  LockStore,
  AcquireInput,
  ReleaseInput,
  ReleaseResult,
  ExtendInput,
  ListInput,
  LeasePage,
  ForceReleaseInput,
  LeaveQueueInput,
  ReadQueueInput,
  QueuePlace,
  LockDelayView,
} from "./store/lock-store.js";
export { LOCK_DELAY_HOLDER, MAX_LOCK_DELAY_MS, validateLockDelayMs } from "./store/lock-store.js";
export { type FairWait, QUEUED_HOLDER } from "./store/fair-wait.js";
export { cleanupOf, withCleanup } from "./store/uncertain-cleanup.js";
export type { LeaseFacts } from "./store/lease-facts.js";
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
  type LeaseSweepCounts,
} from "./mysql/mysql-lease-sweeper.js";
export {
  type SweepListener,
  type SweepReport,
  type SweeperName,
} from "./mysql/periodic-sweeper.js";
export { TieredLocks, type ResourcePolicy, type FencedStore } from "./tier/tiered-locks.js";
export { openTieredLocks, type OpenTieredLocksOptions } from "./tier/open-tiered-locks.js";
export { TIER_CONTROLLER_DEFAULTS, type TierControllerOptions } from "./tier/tier-controller.js";
export type { TierSnapshot, TierTransitionRow } from "./tier/tier-snapshot.js";
export {
  LeaseMirror,
  type LeaseMirrorOptions,
  type MirrorBatchReport,
  type MirrorListener,
  type MirrorStats,
} from "./tier/lease-mirror.js";
export {
  SEMAPHORE_LIMITS,
  type SemaphoreStore,
  type SemaphoreAcquireInput,
  type SemaphoreView,
  type PermitGrant,
  type PermitRefusal,
  type PermitResult,
  type PermitView,
  type PermitRelease,
  type PermitRef,
  type PermitExtendInput,
  type PermitForceReleaseInput,
  type SemaphoreListInput,
  type SemaphoreKeyPage,
} from "./store/semaphore-store.js";
export { LocalSemaphoreStore } from "./local/local-semaphore-store.js";
export {
  RedisSemaphoreStore,
  type RedisSemaphoreStoreOptions,
} from "./redis/semaphore/redis-semaphore-store.js";
export {
  MysqlSemaphoreStore,
  type MysqlSemaphoreStoreOptions,
} from "./mysql/semaphore/mysql-semaphore-store.js";
export {
  MysqlSemaphoreSweeper,
  SEMAPHORE_SWEEPER_DEFAULTS,
  type MysqlSemaphoreSweeperOptions,
  type SemaphoreSweepCounts,
} from "./mysql/semaphore/mysql-semaphore-sweeper.js";
export {
  TieredSemaphores,
  type TieredSemaphoresParts,
  type FencedSemaphoreStore,
  type TierSource,
  type TieredSemaphoreListInput,
} from "./tier/tiered-semaphores.js";
export {
  openTieredSemaphores,
  type OpenTieredSemaphoresOptions,
} from "./tier/open-tiered-semaphores.js";
export {
  RW_DEFAULTS,
  type RwLockStore,
  type RwMode,
  type RwAcquireInput,
  type RwAcquireResult,
  type RwGrant,
  type RwRefusal,
  type RwRefusalReason,
  type RwLeaseView,
  type RwKeyView,
  type RwReleaseInput,
  type RwReleaseResult,
  type RwExtendInput,
  type RwForceReleaseInput,
  type RwWithdrawIntentInput,
} from "./store/rw-lock-store.js";
export { LocalRwLockStore } from "./local/local-rw-lock-store.js";
export { RedisRwLockStore } from "./redis/rw/redis-rw-lock-store.js";
export { MysqlRwLockStore } from "./mysql/rw/mysql-rw-lock-store.js";
export {
  TieredRwLocks,
  type FencedRwStore,
  type TieredRwLocksParts,
} from "./tier/tiered-rw-locks.js";
export {
  MysqlRwSweeper,
  RW_SWEEPER_DEFAULTS,
  type MysqlRwSweeperOptions,
  type RwSweepCounts,
} from "./mysql/rw/mysql-rw-sweeper.js";
