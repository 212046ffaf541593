/**
 * `@warden/sdk`: lease locks from a Warden server, with fencing tokens, a watchdog that
 * renews and aborts `lock.signal` on loss, fair server-side waiting, local fallback for
 * resources that allow it, and fence guards for MySQL and Redis. See README.md.
 */
import "./polyfill/async-dispose.js";

export { createWarden, Warden } from "./client/warden.js";
export type { LockInfo, WaiterInfo } from "./client/views.js";
export type { KnownPolicy } from "./policy/policy-cache.js";
export type { ConnectionState } from "./transport/connection.js";
export { Lock, type RevokeRequest } from "./lock/lock.js";
export {
  LockSet,
  MAX_KEYS_PER_SET,
  canonicalKeys,
  type AcquireAllOptions,
} from "./coordination/acquire-all.js";
export {
  Campaign,
  type CampaignOptions,
  type DemotionReason,
  type Leadership,
  type LeaderInfo,
  type WatchOptions,
} from "./coordination/campaign.js";
export { Semaphore, type PermitAcquireOptions, type SemaphoreInfo } from "./semaphore/semaphore.js";
export { Permit } from "./semaphore/permit.js";
export {
  RwLock,
  type RwAcquireOptions,
  type RwGrantInfo,
  type RwLockInfo,
} from "./rwlock/rw-lock.js";
export { RwLease, type RwMode } from "./rwlock/rw-lease.js";
export { WARDEN_DEFAULTS, type WardenOptions } from "./options/warden-options.js";
export { ACQUIRE_DEFAULTS, type AcquireOptions } from "./options/acquire-options.js";
export { SDK_VERSION } from "./version.js";
export type { FencedHolder, StaleFenceReport } from "./guards/fenced-holder.js";
export type { GuardOutcome, GuardResult } from "./guards/guard-result.js";
export {
  fencedUpdate,
  claimFence,
  claimedUpdate,
  versionedUpdate,
  MYSQL_GUARD_COLUMNS,
  type MysqlGuardColumns,
  type MysqlGuardTarget,
  type MysqlWriteTarget,
  type VersionedWriteTarget,
  type SqlExecutor,
  type SqlValue,
} from "./guards/mysql/index.js";
export {
  redisFencedSet,
  redisClaimFence,
  redisClaimedSet,
  REDIS_GUARD_FIELDS,
  type RedisGuardFields,
  type RedisGuardTarget,
  type RedisWriteTarget,
  type RedisScriptHost,
} from "./guards/redis/index.js";
export {
  TransportError,
  ServerUnreachableError,
  ReplyLostError,
  ClientClosedError,
} from "./transport/transport-errors.js";
export {
  WardenError,
  InvalidArgumentError,
  UnknownResourceError,
  NotHolderError,
  LockTimeoutError,
  LockUnavailableError,
  type LockUnavailableReason,
  LeaseLostError,
  OutcomeUnknownError,
  UnauthorizedError,
  StaleFenceError,
  ErrorCode,
  compareFences,
  parseFence,
  type Tier,
  type Holder,
} from "@warden/contract";
