import calculateSlot from "cluster-key-slot";
import { Cluster } from "ioredis";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LockUnavailableError } from "../errors/lock-unavailable-error.js";
import { NotHolderError } from "../errors/not-holder-error.js";
import { OutcomeUnknownError, type UncertainOperation } from "../errors/outcome-unknown-error.js";
import { ReplicationTimeoutError } from "../errors/replication-timeout-error.js";
import type { LockEvent } from "../events/store-event.js";
import { FENCE_LAYOUT } from "../fence/fence-layout.js";
import { LIMITS } from "../store/limits.js";
import { newLockId } from "../store/lock-id.js";
import type {
  AcquireInput,
  ExtendInput,
  ForceReleaseInput,
  LeasePage,
  ListInput,
  LockStore,
  ReleaseInput,
  ReleaseResult,
} from "../store/lock-store.js";
import type { AcquireResult, LeaseView, LockKey } from "../store/types.js";
import { withTimeout } from "../store/with-timeout.js";
import {
  validateHolder,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  validateWaitReplicas,
} from "../validation/validate.js";
import { EpochBinder } from "./epoch-binder.js";
import {
  acquireLock,
  extendLock,
  forceRelease,
  inspectLock,
  releaseLock,
} from "./generated/lua-scripts.js";
import { decodeLease } from "./lease-codec.js";
import { listLeases } from "./list-leases.js";
import { RedisKeys, epochKeyOfSlot } from "./keys.js";
import { callScript, connectRedis, type RedisClient } from "./redis-connection.js";
import { resolveRedisStoreOptions, type RedisLockStoreOptions } from "./redis-store-options.js";
import { certainlyNotExecuted } from "./reply-error.js";
import { UncertainGrantCleaner } from "./uncertain-grant-cleaner.js";

type Reply = [number, ...(string | number)[]];
type Operation = UncertainOperation | "inspect" | "force-release";

/**
 * The Redis tier: leases in Redis (standalone, sentinel or cluster), every decision in one
 * Lua script, fences minted inside the script from the epoch bound to the node.
 */
export class RedisLockStore implements LockStore {
  readonly tier = "redis" as const;
  private readonly options: ReturnType<typeof resolveRedisStoreOptions>;
  private readonly keys: RedisKeys;
  private readonly binder: EpochBinder;
  private readonly cleaner: UncertainGrantCleaner;
  private closed = false;

  private constructor(
    private readonly client: RedisClient,
    options: RedisLockStoreOptions,
  ) {
    this.options = resolveRedisStoreOptions(options);
    this.keys = new RedisKeys(this.options.shardsPerResource, client instanceof Cluster);
    this.binder = new EpochBinder(client, options.epochSource, options.onEvent);
    this.cleaner = new UncertainGrantCleaner((key, lockId, timeoutMs) =>
      this.removeGrant(key, lockId, timeoutMs),
    );
  }

  /**
   * Connects, loads the durable epoch, and returns a store ready to grant. With `lazy`, it
   * returns at once and keeps reconnecting in the background (a server starting while
   * Redis or MySQL is down); grants are refused until both answer.
   */
  static async open(
    options: RedisLockStoreOptions,
    { lazy = false } = {},
  ): Promise<RedisLockStore> {
    const resolved = resolveRedisStoreOptions(options);
    const client = connectRedis(options.topology, resolved.connectTimeoutMs);
    const store = new RedisLockStore(client, options);
    if (lazy) return store;
    try {
      await waitReady(client, resolved.connectTimeoutMs * 3);
      await store.binder.ensureStarted();
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return store;
  }

  /** The lowest epoch this store grants at; see {@link EpochBinder}. */
  get minEpoch(): number {
    return this.binder.minEpoch;
  }

  /** Raises the epoch floor after a tier switch: the next grant binds a fresh epoch. */
  requireEpoch(epoch: number): void {
    this.binder.require(epoch);
  }

  /** True when Redis answers PING within the command timeout. */
  async probe(): Promise<boolean> {
    try {
      await withTimeout(this.client.ping(), this.options.commandTimeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  async acquire(input: AcquireInput): Promise<AcquireResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const holder = validateHolder(input.holder);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const waitReplicas = validateWaitReplicas(input.waitReplicas);
    await this.binder.ensureStarted();
    const lockId = newLockId();
    const redisKeys = this.keys.forAcquire(key);
    // At most two rebinds: one for a new master, one if the counter ran out right after.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const args = [
        lockId,
        holder.clientId,
        holder.ownerId,
        leaseMs,
        this.binder.minEpoch,
        LIMITS.maxLeaseMs,
        FENCE_LAYOUT.counterSpan,
      ];
      const { reply, acknowledged } = await this.sendAcquire(
        key,
        lockId,
        redisKeys,
        args,
        leaseMs,
        waitReplicas,
      );
      const code = reply[0];
      if (code === 1) return this.granted(key, input, reply, acknowledged, waitReplicas);
      if (code === 0) {
        const [, clientId, ownerId, pttl] = reply as [0, string, string, number];
        this.emit({ type: "refusal", ...this.base(key), holder, heldBy: { clientId, ownerId } });
        return { granted: false, holder: { clientId, ownerId }, ttlMs: pttl, tier: "redis" };
      }
      if (code === -1) throw new InvalidArgumentError("leaseMs", `must be 1..${LIMITS.maxLeaseMs}`);
      await this.rebind(
        key,
        code === -2 ? "new master" : code === -3 ? "epoch below floor" : "counter exhausted",
      );
    }
    throw new LockUnavailableError("Redis node could not be bound to a fencing epoch");
  }

  async release(input: ReleaseInput): Promise<ReleaseResult> {
    const key = validateLockKey(input);
    const lockId = validateLockId(input.lockId);
    const reply = await this.call("release", lockId, () =>
      callScript(this.client, releaseLock, [this.keys.lease(key)], [lockId]),
    );
    if (reply[0] === 1) {
      const remaining = Number(reply[1]);
      this.emit({ type: "release", ...this.base(key), lockId, released: remaining === 0 });
      return { released: remaining === 0, reentry: remaining };
    }
    throw this.notHolder(key, lockId, reply[0]);
  }

  async extend(input: ExtendInput): Promise<LeaseView> {
    const key = validateLockKey(input);
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const reply = await this.call(
      "extend",
      lockId,
      () =>
        callScript(
          this.client,
          extendLock,
          [this.keys.lease(key)],
          [lockId, leaseMs, LIMITS.maxLeaseMs],
        ),
      leaseMs,
    );
    if (reply[0] === 1) {
      const [, value, ttl, now] = reply as [1, string, number, number];
      this.emit({ type: "extend", ...this.base(key), lockId, leaseMs });
      return decodeLease(key, value, ttl, now);
    }
    if (reply[0] === -1)
      throw new InvalidArgumentError("leaseMs", `must be 1..${LIMITS.maxLeaseMs}`);
    throw this.notHolder(key, lockId, reply[0]);
  }

  async inspect(input: LockKey): Promise<LeaseView | null> {
    const key = validateLockKey(input);
    return this.inspectKey(key);
  }

  async list(input: ListInput): Promise<LeasePage> {
    return listLeases(this.client, this.keys, input, (key) => this.inspectKey(key));
  }

  async forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    const key = validateLockKey(input);
    const lockId = input.lockId === undefined ? "" : validateLockId(input.lockId);
    const removed = await this.removeGrant(key, lockId, this.options.commandTimeoutMs);
    if (removed) {
      this.emit({
        type: "force-release",
        ...this.base(key),
        lockId: removed.lockId,
        holder: removed.holder,
      });
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cleaner.close();
    try {
      await withTimeout(this.client.quit(), this.options.commandTimeoutMs);
    } catch {
      this.client.disconnect();
    }
  }

  private async sendAcquire(
    key: LockKey,
    lockId: string,
    redisKeys: string[],
    args: (string | number)[],
    leaseMs: number,
    waitReplicas: number,
  ): Promise<{ reply: Reply; acknowledged: number }> {
    const timeoutMs =
      this.timeoutFor(leaseMs) + (waitReplicas > 0 ? this.options.waitReplicasTimeoutMs : 0);
    try {
      if (waitReplicas === 0) {
        const reply = (await withTimeout(
          callScript(this.client, acquireLock, redisKeys, args),
          timeoutMs,
        )) as Reply;
        return { reply, acknowledged: 0 };
      }
      // One pipeline so WAIT runs on the node that just granted (cluster routes by the keys).
      const pipeline = this.client.pipeline();
      (pipeline as unknown as Record<string, (...a: unknown[]) => unknown>)[acquireLock.command]!(
        ...redisKeys,
        ...args,
      );
      pipeline.wait(waitReplicas, this.options.waitReplicasTimeoutMs);
      const results = await withTimeout(pipeline.exec(), timeoutMs);
      const [acquired, waited] = results ?? [];
      if (acquired?.[0]) throw acquired[0];
      return { reply: acquired?.[1] as Reply, acknowledged: Number(waited?.[1] ?? 0) };
    } catch (error) {
      throw this.failure("acquire", key, lockId, error, leaseMs);
    }
  }

  private async granted(
    key: LockKey,
    input: AcquireInput,
    reply: Reply,
    acknowledged: number,
    waitReplicas: number,
  ): Promise<AcquireResult> {
    const [, lockId, fence, reentry, ttlMs, nowMs] = reply as [
      1,
      string,
      number,
      number,
      number,
      number,
    ];
    if (waitReplicas > 0 && acknowledged < waitReplicas) {
      await this.undoUnacknowledged(key, lockId, reentry);
      this.emit({
        type: "replication-timeout",
        ...this.base(key),
        lockId,
        required: waitReplicas,
        acknowledged,
      });
      throw new ReplicationTimeoutError(waitReplicas, acknowledged);
    }
    const fenceText = String(fence);
    this.emit({
      type: "grant",
      ...this.base(key),
      lockId,
      fence: fenceText,
      holder: input.holder,
      leaseMs: input.leaseMs,
      reentry,
    });
    return {
      granted: true,
      reentered: reentry > 1,
      resource: key.resource,
      businessKey: key.businessKey,
      lockId,
      fence: fenceText,
      holder: { clientId: input.holder.clientId, ownerId: input.holder.ownerId },
      reentry,
      ttlMs,
      expiresAt: nowMs + ttlMs,
      tier: "redis",
    };
  }

  /** A first grant is removed; an unacknowledged re-entry only gives its entry back. */
  private async undoUnacknowledged(key: LockKey, lockId: string, reentry: number): Promise<void> {
    if (reentry > 1) {
      await this.call("release", lockId, () =>
        callScript(this.client, releaseLock, [this.keys.lease(key)], [lockId]),
      );
    } else {
      await this.removeGrant(key, lockId, this.options.commandTimeoutMs);
    }
  }

  private async rebind(key: LockKey, reason: string): Promise<void> {
    if (!(this.client instanceof Cluster)) {
      await this.binder.rebind("master", [this.keys.epoch(key)], reason);
      return;
    }
    const slot = calculateSlot(this.keys.lease(key));
    const slots = (this.client as unknown as { slots: string[][] }).slots;
    const master = slots[slot]?.[0] ?? `slot ${slot}`;
    const epochKeys: string[] = [];
    slots.forEach((nodes, s) => {
      if (nodes[0] === master) epochKeys.push(epochKeyOfSlot(s));
    });
    await this.binder.rebind(
      master,
      epochKeys.length > 0 ? epochKeys : [this.keys.epoch(key)],
      reason,
    );
  }

  private async inspectKey(key: LockKey): Promise<LeaseView | null> {
    const reply = await this.call("inspect", "", () =>
      callScript(this.client, inspectLock, [this.keys.lease(key)], []),
    );
    if (reply[0] !== 1) return null;
    const [, value, ttl, now] = reply as [1, string, number, number];
    return decodeLease(key, value, ttl, now);
  }

  private async removeGrant(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
  ): Promise<LeaseView | null> {
    const reply = await this.call(
      "force-release",
      lockId,
      () => callScript(this.client, forceRelease, [this.keys.lease(key)], [lockId]),
      timeoutMs * 3,
    );
    if (reply[0] !== 1) return null;
    const [, value, ttl, now] = reply as [1, string, number, number];
    return decodeLease(key, value, ttl, now);
  }

  private async call(
    operation: Operation,
    lockId: string,
    send: () => Promise<unknown>,
    leaseMs?: number,
  ): Promise<Reply> {
    try {
      return (await withTimeout(send(), this.timeoutFor(leaseMs))) as Reply;
    } catch (error) {
      throw this.failure(operation, undefined, lockId, error, leaseMs);
    }
  }

  /** Maps a failed call to a typed error; an uncertain grant is cleaned up by lockId. */
  private failure(
    operation: Operation,
    key: LockKey | undefined,
    lockId: string,
    error: unknown,
    leaseMs: number | undefined,
  ): Error {
    if (error instanceof InvalidArgumentError) return error;
    if (certainlyNotExecuted(error)) {
      return new LockUnavailableError(`Redis refused ${operation}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (operation === "inspect" || operation === "force-release") {
      return new LockUnavailableError(`Redis ${operation} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (operation === "acquire" && key && leaseMs !== undefined) {
      this.cleaner.schedule(key, lockId, leaseMs, (cleanedUp) =>
        this.emit({ type: "outcome-unknown", ...this.base(key), lockId, cleanedUp }),
      );
    }
    return new OutcomeUnknownError(lockId, operation, { cause: error });
  }

  private notHolder(key: LockKey, lockId: string, code: number): NotHolderError {
    if (code === -5) {
      this.emit({ type: "expired", ...this.base(key), lockId });
      return new NotHolderError(lockId, "expired");
    }
    return new NotHolderError(lockId, "other-holder");
  }

  private timeoutFor(leaseMs: number | undefined): number {
    const bound = leaseMs === undefined ? Infinity : Math.floor(leaseMs / 3);
    return Math.max(1, Math.min(this.options.commandTimeoutMs, bound));
  }

  private base(key: LockKey) {
    return {
      resource: key.resource,
      businessKey: key.businessKey,
      tier: "redis" as const,
      at: Date.now(),
    };
  }

  private emit(event: LockEvent): void {
    this.options.onEvent?.(event);
  }
}

function waitReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return withTimeout(
    new Promise<void>((resolve) => client.once("ready", () => resolve())),
    timeoutMs,
  ).catch((cause: unknown) => {
    throw new LockUnavailableError(`Redis not ready within ${timeoutMs} ms`, { cause });
  });
}
