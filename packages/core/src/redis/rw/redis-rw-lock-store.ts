import {
  FENCE_LAYOUT,
  InvalidArgumentError,
  LIMITS,
  LockUnavailableError,
  NotHolderError,
  ReplicationTimeoutError,
  newLockId,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  type Holder,
  type LockKey,
} from "@warden/contract";
import {
  checkRwAcquire,
  checkRwWithdrawIntent,
  holdsGrants,
  modeMixError,
  mutexHeldError,
  type RwAcquireInput,
  type RwAcquireResult,
  type RwExtendInput,
  type RwForceReleaseInput,
  type RwKeyPage,
  type RwKeyView,
  type RwListInput,
  type RwLeaseView,
  type RwLockStore,
  type RwMode,
  type RwRefusalReason,
  type RwReleaseInput,
  type RwReleaseResult,
  type RwWithdrawIntentInput,
} from "../../store/rw-lock-store.js";
import { withTimeout } from "../../store/with-timeout.js";
import {
  rwAcquire,
  rwExtend,
  rwForceRelease,
  rwInspect,
  rwRelease,
  rwWithdrawIntent,
} from "../generated/lua-scripts.js";
import type { RedisKeys } from "../keys.js";
import { listKeysByScan } from "../list-keys-by-scan.js";
import { callScript, type RedisClient } from "../redis-connection.js";
import { RedisStoreBase } from "../redis-store-base.js";
import { ScriptBatcher } from "../script-batch.js";
import type { RedisLockStoreOptions } from "../redis-store-options.js";
import { UnexpectedReplyError, replyArray } from "../reply-code.js";

/**
 * How long a key's read-write state (its read fence) outlives its last grant or intent, in
 * ms: readers arriving within it, with no write between, still share the generation's fence.
 */
export const RW_RETAIN_MS = LIMITS.maxLeaseMs;

/**
 * The keys of one read-write lock, all in the slot of the key's mutex lease
 * (`{resource#shard}` hash tag, see RedisKeys): the state hash, the shard's fence counter
 * (shared with the mutex, so both draw fences from one counter), the node's epoch record,
 * and the mutex lease (read only: a key held as a mutex is refused), and the key's watch mark
 * (decision 0206): the mutex's own (RedisKeys.watch), as the mutex lease is read here too.
 *
 *   w:{<resource>#<shard>}:rw:<businessKey>   the read-write state (hash, PX)
 */
export function rwKeys(
  keys: RedisKeys,
  key: LockKey,
): [state: string, counter: string, epoch: string, mutex: string, watch: string] {
  const tag = `{${key.resource}#${keys.shardOf(key.businessKey)}}`;
  return [
    `w:${tag}:rw:${key.businessKey}`,
    keys.counter(key),
    keys.epoch(key),
    keys.lease(key),
    `w:${tag}:n:${key.businessKey}`,
  ];
}

/** The two keys a release touches (rwRelease-2.lua): the state and the watch mark. */
export function rwReleaseKeys(keys: RedisKeys, key: LockKey): [state: string, watch: string] {
  const tag = `{${key.resource}#${keys.shardOf(key.businessKey)}}`;
  return [`w:${tag}:rw:${key.businessKey}`, `w:${tag}:n:${key.businessKey}`];
}

/** One stored grant: `mode|fence|reentry|grantedAt|renewals|expiresAt|clientId|ownerId`. */
function decodeGrant(key: LockKey, lockId: string, value: string, nowMs: number): RwLeaseView {
  const [mode, fence, reentry, grantedAt, renewals, expiresAt, clientId, ...owner] =
    value.split("|");
  const expires = Number(expiresAt);
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId,
    mode: mode as RwMode,
    fence: fence ?? null,
    holder: { clientId: clientId ?? "", ownerId: owner.join("|") },
    reentry: Number(reentry),
    grantedAt: Number(grantedAt),
    renewals: Number(renewals),
    ttlMs: Math.max(0, expires - nowMs),
    expiresAt: expires,
    tier: "redis",
  };
}

/**
 * The Redis tier's read-write locks (decision 0165): one hash per key holding its grants,
 * writer intents and read fence, every decision in one Lua script (`rwAcquire-5.lua`), fences
 * minted there from the same shard counter and node epoch as the mutex (decision 0004).
 * Opens its own connection with the mutex store's options.
 */
export class RedisRwLockStore extends RedisStoreBase implements RwLockStore {
  /** Rebinds completed by this store (see {@link rebindUnlessDone}). */
  private bindsDone = 0;
  private rebinding: Promise<void> | undefined;
  /** A turn's acquires, releases and extends each go together (decision 0213); null on a cluster. */
  private readonly acquires: ScriptBatcher | null;
  /** As `acquires`, on `replicaClient`, for grants that wait for replicas (decision 0228). */
  private readonly acquiresWaiting: ScriptBatcher | null;
  private readonly releases: ScriptBatcher | null;
  private readonly extends: ScriptBatcher | null;

  private constructor(client: RedisClient, options: RedisLockStoreOptions) {
    super(client, options);
    this.acquires = ScriptBatcher.rwAcquires(client);
    this.acquiresWaiting = ScriptBatcher.rwAcquires(this.replicaClient);
    this.releases = ScriptBatcher.rwReleases(client);
    this.extends = ScriptBatcher.rwExtends(client);
  }

  /**
   * Connects and loads the durable epoch (see RedisLockStore.open); with `lazy`, returns at
   * once and connects in the background (a server starting while Redis is down).
   */
  static open(options: RedisLockStoreOptions, { lazy = false } = {}): Promise<RedisRwLockStore> {
    return RedisStoreBase.connect(options, lazy, (client) => new RedisRwLockStore(client, options));
  }

  protected removeUncertain(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
    client: RedisClient,
  ): Promise<unknown> {
    return this.remove(key, lockId, timeoutMs, client);
  }

  acquireRead(input: RwAcquireInput): Promise<RwAcquireResult> {
    return this.acquire("read", input);
  }

  acquireWrite(input: RwAcquireInput): Promise<RwAcquireResult> {
    return this.acquire("write", input);
  }

  private async acquire(mode: RwMode, input: RwAcquireInput): Promise<RwAcquireResult> {
    const { key, holder, leaseMs, writerPreference, intentMs, waitReplicas } =
      checkRwAcquire(input);
    await this.binder.ensureStarted();
    const lockId = newLockId();
    const redisKeys = rwKeys(this.keys, key);
    // At most two rebinds: one for a new master, one if the counter ran out right after.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const bindsBefore = this.bindsDone;
      const args = [
        mode,
        lockId,
        holder.clientId,
        holder.ownerId,
        leaseMs,
        this.binder.minEpoch,
        LIMITS.maxLeaseMs,
        FENCE_LAYOUT.counterSpan,
        writerPreference ? "1" : "0",
        intentMs,
        RW_RETAIN_MS,
      ];
      let raw: unknown;
      let acknowledged = 0;
      try {
        if (waitReplicas === 0) {
          raw = await withTimeout(
            ScriptBatcher.send(this.acquires, this.client, rwAcquire, redisKeys, args),
            this.caller.timeoutFor(leaseMs),
          );
        } else {
          // On the connection of grants that wait (decision 0228), with the turn's others that
          // wait alike: one WAIT after their batch (decision 0227).
          ({ reply: raw, acknowledged } = await withTimeout(
            ScriptBatcher.sendThenWait(
              this.acquiresWaiting,
              this.replicaClient,
              rwAcquire,
              redisKeys,
              args,
              waitReplicas,
              this.options.waitReplicasTimeoutMs,
            ),
            this.caller.timeoutFor(leaseMs) + this.options.waitReplicasTimeoutMs,
          ));
        }
      } catch (error) {
        // Cleaned up on the connection it was sent on (decision 0228).
        const caller = waitReplicas === 0 ? this.caller : this.replicaCaller;
        throw caller.failure("acquire", key, lockId, error, leaseMs);
      }
      const reply = replyArray("rwAcquire-5", raw);
      switch (reply[0]) {
        case 1: {
          const [, id, fence, reentry, expiresAt, nowMs, grantedAt, renewals] = reply as number[];
          if (acknowledged < waitReplicas) {
            await this.undoUnacknowledged(key, String(id), Number(reentry));
            this.events.lock(key, {
              type: "replication-timeout",
              lockId: String(id),
              required: waitReplicas,
              acknowledged,
              entryOnly: Number(reentry) > 1,
            });
            throw new ReplicationTimeoutError(waitReplicas, acknowledged);
          }
          return {
            granted: true,
            reentered: Number(reentry) > 1,
            resource: key.resource,
            businessKey: key.businessKey,
            lockId: String(id),
            mode,
            fence: String(fence),
            holder: { clientId: holder.clientId, ownerId: holder.ownerId },
            reentry: Number(reentry),
            grantedAt: Number(grantedAt),
            renewals: Number(renewals),
            ttlMs: Number(expiresAt) - Number(nowMs),
            expiresAt: Number(expiresAt),
            tier: "redis",
          };
        }
        case 0: {
          const holders: Holder[] = [];
          for (let i = 3; i + 1 < reply.length; i += 2) {
            holders.push({ clientId: String(reply[i]), ownerId: String(reply[i + 1]) });
          }
          return {
            granted: false,
            mode,
            reason: String(reply[1]) as RwRefusalReason,
            holders,
            retryAfterMs: Number(reply[2]),
            tier: "redis",
          };
        }
        case -1:
          throw new InvalidArgumentError("leaseMs", `must be 1..${LIMITS.maxLeaseMs}`);
        case -8:
          throw mutexHeldError();
        case -9:
          throw modeMixError(mode);
        case -2:
          await this.rebindUnlessDone(key, "new master", bindsBefore);
          break;
        case -3:
          await this.rebindUnlessDone(key, "epoch below floor", bindsBefore);
          break;
        case -4:
          await this.rebindUnlessDone(key, "counter exhausted", bindsBefore);
          break;
        default:
          throw this.caller.failure(
            "acquire",
            key,
            lockId,
            new UnexpectedReplyError("rwAcquire-5", raw),
            leaseMs,
          );
      }
    }
    throw new LockUnavailableError("Redis node could not be bound to a fencing epoch", {
      reason: "fencing-epoch",
    });
  }

  async release(input: RwReleaseInput): Promise<RwReleaseResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const reply = await this.caller.call(
      "release",
      lockId,
      () =>
        ScriptBatcher.send(this.releases, this.client, rwRelease, rwReleaseKeys(this.keys, key), [
          lockId,
        ]),
      (raw) => replyArray("rwRelease-2", raw),
    );
    if (reply[0] !== 1) throw new NotHolderError(lockId, "expired");
    const remaining = Number(reply[1]);
    const before = decodeGrant(key, lockId, String(reply[2]), 0);
    return {
      released: remaining === 0,
      reentry: remaining,
      mode: before.mode,
      fence: before.fence,
      // A caller refused the key since the mark was last taken may be waiting (decision 0206).
      watched: Number(reply[3]) === 1,
    };
  }

  async extend(input: RwExtendInput): Promise<RwLeaseView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const [state] = rwKeys(this.keys, key);
    const reply = await this.caller.call(
      "extend",
      lockId,
      () =>
        ScriptBatcher.send(
          this.extends,
          this.client,
          rwExtend,
          [state],
          [lockId, leaseMs, LIMITS.maxLeaseMs, RW_RETAIN_MS],
        ),
      (raw) => replyArray("rwExtend-1", raw),
      leaseMs,
    );
    if (reply[0] !== 1) throw new NotHolderError(lockId, "expired");
    return decodeGrant(key, lockId, String(reply[1]), Number(reply[2]));
  }

  async inspect(input: LockKey): Promise<RwKeyView | null> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const [state] = rwKeys(this.keys, key);
    const reply = await this.caller.call(
      "inspect",
      "",
      () => callScript(this.client, rwInspect, [state], []),
      (raw) => replyArray("rwInspect-1", raw),
    );
    const nowMs = Number(reply[0]);
    let writer: RwLeaseView | null = null;
    const readers: RwLeaseView[] = [];
    let readFence: string | null = null;
    let waitingWriters = 0;
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const field = String(reply[i]);
      const value = String(reply[i + 1]);
      if (field === "R") readFence = value;
      else if (field.startsWith("i:")) {
        if (Number(value) > nowMs) waitingWriters += 1;
      } else if (field.startsWith("g:")) {
        const grant = decodeGrant(key, field.slice(2), value, nowMs);
        if (grant.expiresAt <= nowMs) continue;
        if (grant.mode === "write") writer = grant;
        else readers.push(grant);
      }
    }
    if (!writer && readers.length === 0 && waitingWriters === 0) return null;
    readers.sort((a, b) => a.grantedAt - b.grantedAt || a.lockId.localeCompare(b.lockId));
    return { ...key, writer, readers, readFence, waitingWriters, tier: "redis" };
  }

  /** The resource's keys with a live grant, found with SCAN (see {@link listKeysByScan}). */
  list(input: RwListInput): Promise<RwKeyPage> {
    return listKeysByScan(this.client, input, "rw", (key) => this.inspect(key), holdsGrants);
  }

  async forceRelease(input: RwForceReleaseInput): Promise<RwLeaseView[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = input.lockId === undefined ? "" : validateLockId(input.lockId);
    return this.remove(key, lockId, this.options.commandTimeoutMs);
  }

  /** Removes the holder's intent field from the key's hash (`rwWithdrawIntent-1.lua`). */
  async withdrawIntent(input: RwWithdrawIntentInput): Promise<boolean> {
    const { key, holder } = checkRwWithdrawIntent(input);
    const [state] = rwKeys(this.keys, key);
    const reply = await this.caller.call(
      "withdraw-intent",
      "",
      () => callScript(this.client, rwWithdrawIntent, [state], [holder.clientId, holder.ownerId]),
      (raw) => replyArray("rwWithdrawIntent-1", raw),
    );
    return reply[0] === 1;
  }

  /**
   * Takes back a grant too few replicas acknowledged (a failover now could lose it): a
   * re-entry gives back only its own entry, a first grant goes.
   */
  private async undoUnacknowledged(key: LockKey, lockId: string, reentry: number): Promise<void> {
    if (reentry > 1) await this.release({ ...key, lockId });
    else await this.remove(key, lockId, this.options.commandTimeoutMs);
  }

  private async remove(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
    client: RedisClient = this.client,
  ): Promise<RwLeaseView[]> {
    const [state] = rwKeys(this.keys, key);
    const reply = await this.caller.call(
      "force-release",
      lockId,
      () => callScript(client, rwForceRelease, [state], [lockId]),
      (raw) => replyArray("rwForceRelease-1", raw),
      timeoutMs * 3,
    );
    const nowMs = Number(reply[0]);
    return reply.slice(1).map((entry) => {
      const text = String(entry);
      const cut = text.indexOf("|");
      return decodeGrant(key, text.slice(0, cut), text.slice(cut + 1), nowMs);
    });
  }

  /**
   * Rebinds unless a rebind finished since the refused attempt was sent: concurrent acquires
   * refused by one unbound node then share its one new epoch (and the readers among them one
   * read fence) instead of each minting another.
   */
  private async rebindUnlessDone(key: LockKey, reason: string, bindsBefore: number): Promise<void> {
    if (this.bindsDone !== bindsBefore) return;
    // One rebind at a time per store (whatever node it is for): a caller that finds one in
    // flight waits for it and tries again, and rebinds its own node then if still needed.
    if (this.rebinding) {
      await this.rebinding.catch(() => undefined);
      return;
    }
    this.rebinding = this.rebind(key, reason)
      .then(() => {
        this.bindsDone += 1;
      })
      .finally(() => (this.rebinding = undefined));
    await this.rebinding;
  }
}
