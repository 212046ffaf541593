import { NotHolderError, type LockKey } from "@warden/contract";
import type { StoreEventEmitter } from "../../events/event-emitter.js";
import type { EpochBinder } from "../epoch-binder.js";
import type { RedisKeys } from "../keys.js";
import type { RedisCaller } from "../redis-caller.js";
import type { ScriptBatcher } from "../script-batch.js";
import type { RedisClient } from "../redis-connection.js";
import { ReplyCode } from "../reply-code.js";

/** What every Redis store operation (one file each in this folder) works with. */
export interface RedisOpContext {
  readonly client: RedisClient;
  readonly keys: RedisKeys;
  readonly events: StoreEventEmitter;
  readonly caller: RedisCaller;
  readonly binder: EpochBinder;
  readonly commandTimeoutMs: number;
  readonly waitReplicasTimeoutMs: number;
  /** Sends the plain acquires of a turn together; null on a cluster (decision 0213). */
  readonly plainAcquires: ScriptBatcher | null;
  /** Sends the acquires of a fair resource of a turn together; null on a cluster (decision 0213). */
  readonly fairAcquires: ScriptBatcher | null;
  /** The connection of grants that wait for replicas, with their `WAIT` (decision 0228). */
  readonly replicaClient: RedisClient;
  /** Reports failures of grants sent on `replicaClient`, cleaning them up on it. */
  readonly replicaCaller: RedisCaller;
  /** As `plainAcquires` and `fairAcquires`, on `replicaClient`, for grants that wait. */
  readonly plainAcquiresWaiting: ScriptBatcher | null;
  readonly fairAcquiresWaiting: ScriptBatcher | null;
  /** Sends the releases of a turn together; null on a cluster (decision 0213). */
  readonly releases: ScriptBatcher | null;
  /** Sends the extends of a turn (a bulk renewal) together; null on a cluster (decision 0213). */
  readonly extends: ScriptBatcher | null;
}

/** The error for a release or extend whose lockId does not hold the key; reports an expiry. */
export function notHolder(
  ctx: RedisOpContext,
  key: LockKey,
  lockId: string,
  code: ReplyCode.NoLease | ReplyCode.OtherHolder,
): NotHolderError {
  if (code === ReplyCode.NoLease) {
    ctx.events.lock(key, { type: "expired", lockId });
    return new NotHolderError(lockId, "expired");
  }
  return new NotHolderError(lockId, "other-holder");
}
