import {
  validateLockKey,
  type AcquireResult,
  type LeaseView,
  type LockKey,
} from "@warden/contract";
import type {
  AcquireInput,
  ExtendInput,
  ForceReleaseInput,
  LeasePage,
  LeaveQueueInput,
  LockDelayView,
  ListInput,
  LockStore,
  QueuePlace,
  ReadQueueInput,
  ReleaseInput,
  ReleaseResult,
} from "../store/lock-store.js";
import { listLeases } from "./list-leases.js";
import { acquireOp } from "./ops/acquire.js";
import { extendOp } from "./ops/extend.js";
import { forceReleaseOp, removeGrant } from "./ops/force-release.js";
import { inspectDelayKey, inspectKey } from "./ops/inspect.js";
import { leaveQueueOp } from "./ops/leave-queue.js";
import { readQueueOp } from "./ops/read-queue.js";
import type { RedisOpContext } from "./ops/redis-op-context.js";
import { releaseOp } from "./ops/release.js";
import type { RedisClient } from "./redis-connection.js";
import { RedisStoreBase } from "./redis-store-base.js";
import { ScriptBatcher } from "./script-batch.js";
import type { RedisLockStoreOptions } from "./redis-store-options.js";

/**
 * The Redis tier: leases in Redis (standalone, sentinel or cluster), every decision in one
 * Lua script, fences minted inside the script from the epoch bound to the node. Each
 * operation lives in its own file under `ops/`, with the typed reply of its script; the
 * connection, epoch binding and cleanup are {@link RedisStoreBase}'s.
 */
export class RedisLockStore extends RedisStoreBase implements LockStore {
  private readonly ctx: RedisOpContext;

  private constructor(client: RedisClient, options: RedisLockStoreOptions) {
    super(client, options);
    this.ctx = {
      client,
      keys: this.keys,
      events: this.events,
      caller: this.caller,
      binder: this.binder,
      commandTimeoutMs: this.options.commandTimeoutMs,
      waitReplicasTimeoutMs: this.options.waitReplicasTimeoutMs,
      plainAcquires: ScriptBatcher.plainAcquires(client),
      fairAcquires: ScriptBatcher.fairAcquires(client),
      replicaClient: this.replicaClient,
      replicaCaller: this.replicaCaller,
      plainAcquiresWaiting: ScriptBatcher.plainAcquires(this.replicaClient),
      fairAcquiresWaiting: ScriptBatcher.fairAcquires(this.replicaClient),
      releases: ScriptBatcher.releases(client),
      extends: ScriptBatcher.extends(client),
    };
  }

  /**
   * Connects, loads the durable epoch, and returns a store ready to grant. With `lazy`, it
   * returns at once and keeps reconnecting in the background (a server starting while
   * Redis or MySQL is down); grants are refused until both answer.
   */
  static open(options: RedisLockStoreOptions, { lazy = false } = {}): Promise<RedisLockStore> {
    return RedisStoreBase.connect(options, lazy, (client) => new RedisLockStore(client, options));
  }

  protected removeUncertain(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
    client: RedisClient,
  ): Promise<unknown> {
    return removeGrant({ ...this.ctx, client }, key, lockId, timeoutMs);
  }

  acquire(input: AcquireInput): Promise<AcquireResult> {
    return acquireOp(this.ctx, input);
  }

  release(input: ReleaseInput): Promise<ReleaseResult> {
    return releaseOp(this.ctx, input);
  }

  extend(input: ExtendInput): Promise<LeaseView> {
    return extendOp(this.ctx, input);
  }

  async inspect(input: LockKey): Promise<LeaseView | null> {
    return inspectKey(this.ctx, validateLockKey(input));
  }

  async inspectDelay(input: LockKey): Promise<LockDelayView | null> {
    return inspectDelayKey(this.ctx, validateLockKey(input));
  }

  list(input: ListInput): Promise<LeasePage> {
    return listLeases(this.client, this.ctx.keys, input, (key) => inspectKey(this.ctx, key));
  }

  forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    return forceReleaseOp(this.ctx, input);
  }

  leaveQueue(input: LeaveQueueInput): Promise<boolean> {
    return leaveQueueOp(this.ctx, input);
  }

  readQueue(input: ReadQueueInput): Promise<QueuePlace[]> {
    return readQueueOp(this.ctx, input);
  }
}
