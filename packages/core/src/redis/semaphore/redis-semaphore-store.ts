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
import { validateWaiterId } from "../../store/fair-wait.js";
import {
  SEMAPHORE_LIMITS,
  checkPermitRef,
  checkSemaphoreAcquire,
  holdsPermits,
  type PermitExtendInput,
  type PermitForceReleaseInput,
  type PermitRef,
  type PermitResult,
  type PermitRelease,
  type PermitView,
  type SemaphoreAcquireInput,
  type SemaphoreKeyPage,
  type SemaphoreListInput,
  type SemaphoreStore,
  type SemaphoreView,
} from "../../store/semaphore-store.js";
import { withTimeout } from "../../store/with-timeout.js";
import {
  leaveQueue,
  semaphoreAcquire,
  semaphoreAcquirePlain,
  semaphoreExtend,
  semaphoreForceRelease,
  semaphoreInspect,
  semaphoreRelease,
} from "../generated/lua-scripts.js";
import { listKeysByScan } from "../list-keys-by-scan.js";
import { callScript, type RedisClient } from "../redis-connection.js";
import { RedisStoreBase } from "../redis-store-base.js";
import { ScriptBatcher } from "../script-batch.js";
import type { RedisLockStoreOptions } from "../redis-store-options.js";
import { UnexpectedReplyError, replyArray } from "../reply-code.js";
import { SemaphoreKeys } from "./semaphore-keys.js";

/** Reply codes of the semaphore scripts (their headers in `lua/` say which returns which). */
const Code = {
  Ok: 1,
  Refused: 0,
  BadInput: -1,
  NotBound: -2,
  EpochBelowFloor: -3,
  CounterExhausted: -4,
  Queued: -7,
} as const;

/** Options of {@link RedisSemaphoreStore}: those of the Redis lock store. */
export type RedisSemaphoreStoreOptions = RedisLockStoreOptions;

/**
 * The Redis tier's semaphore (docs/decisions/0160): a key's grants in a sorted set scored by
 * expiry plus a hash of their facts, every decision in one Lua script, fences minted from the
 * shard counter and the node's epoch exactly as the mutex mints them (the shared fence snippet, decision 0179), so
 * fences only grow per key whichever primitive or tier granted before.
 */
export class RedisSemaphoreStore extends RedisStoreBase implements SemaphoreStore {
  private readonly semaphoreKeys: SemaphoreKeys;
  /** A turn's plain acquires, releases and extends each go together (decision 0213); null on a cluster. */
  private readonly plainAcquires: ScriptBatcher | null;
  private readonly fairAcquires: ScriptBatcher | null;
  /** As the two above, on `replicaClient`, for grants that wait for replicas (decision 0228). */
  private readonly plainAcquiresWaiting: ScriptBatcher | null;
  private readonly fairAcquiresWaiting: ScriptBatcher | null;
  private readonly releases: ScriptBatcher | null;
  private readonly extends: ScriptBatcher | null;

  private constructor(client: RedisClient, options: RedisSemaphoreStoreOptions) {
    super(client, options);
    this.semaphoreKeys = new SemaphoreKeys(this.keys);
    this.plainAcquires = ScriptBatcher.permitAcquires(client);
    this.fairAcquires = ScriptBatcher.permitFairAcquires(client);
    this.plainAcquiresWaiting = ScriptBatcher.permitAcquires(this.replicaClient);
    this.fairAcquiresWaiting = ScriptBatcher.permitFairAcquires(this.replicaClient);
    this.releases = ScriptBatcher.permitReleases(client);
    this.extends = ScriptBatcher.permitExtends(client);
  }

  /** Connects and loads the durable epoch; with `lazy`, returns at once and connects in the background. */
  static open(
    options: RedisSemaphoreStoreOptions,
    { lazy = false } = {},
  ): Promise<RedisSemaphoreStore> {
    return RedisStoreBase.connect(
      options,
      lazy,
      (client) => new RedisSemaphoreStore(client, options),
    );
  }

  protected removeUncertain(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
    client: RedisClient,
  ): Promise<unknown> {
    return this.remove(key, lockId, timeoutMs, client);
  }

  async acquire(input: SemaphoreAcquireInput): Promise<PermitResult> {
    const checked = checkSemaphoreAcquire(input);
    const { key, holder, leaseMs, permits, totalPermits, fair, heldElsewhere, waitReplicas } =
      checked;
    if (!this.binder.ready) await this.binder.ensureStarted();
    const lockId = newLockId();
    // A plain acquire ignores the key's fair queue, so it runs the lean script without the
    // queue keys and arguments, as the mutex's plain acquire does (docs/decisions/0198).
    const script = fair ? semaphoreAcquire : semaphoreAcquirePlain;
    const redisKeys = fair
      ? this.semaphoreKeys.forAcquire(key)
      : this.semaphoreKeys.forPlainAcquire(key);
    const timeoutMs =
      this.caller.timeoutFor(leaseMs) + (waitReplicas > 0 ? this.options.waitReplicasTimeoutMs : 0);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const args: (string | number)[] = [
        lockId,
        holder.clientId,
        holder.ownerId,
        leaseMs,
        this.binder.minEpoch,
        LIMITS.maxLeaseMs,
        FENCE_LAYOUT.counterSpan,
        permits,
        totalPermits,
        heldElsewhere,
      ];
      if (fair) {
        args.push(fair.heartbeatMs, SEMAPHORE_LIMITS.maxTotalPermits, fair.waiterId ?? "");
      } else {
        args.push(SEMAPHORE_LIMITS.maxTotalPermits);
      }
      let reply: unknown[];
      let acknowledged = 0;
      try {
        let raw: unknown;
        if (waitReplicas === 0) {
          raw = await withTimeout(
            ScriptBatcher.send(
              fair ? this.fairAcquires : this.plainAcquires,
              this.client,
              script,
              redisKeys,
              args,
            ),
            timeoutMs,
          );
        } else {
          // On the connection of grants that wait (decision 0228), with the turn's others that
          // wait alike: one WAIT after their batch (decision 0227).
          ({ reply: raw, acknowledged } = await withTimeout(
            ScriptBatcher.sendThenWait(
              fair ? this.fairAcquiresWaiting : this.plainAcquiresWaiting,
              this.replicaClient,
              script,
              redisKeys,
              args,
              waitReplicas,
              this.options.waitReplicasTimeoutMs,
            ),
            timeoutMs,
          ));
        }
        reply = replyArray(
          script === semaphoreAcquire ? "semaphoreAcquire" : "semaphoreAcquirePlain",
          raw,
        );
      } catch (error) {
        // Cleaned up on the connection it was sent on (decision 0228).
        const caller = waitReplicas === 0 ? this.caller : this.replicaCaller;
        throw caller.failure("acquire", key, lockId, error, leaseMs);
      }
      switch (reply[0]) {
        case Code.Ok: {
          if (acknowledged < waitReplicas) {
            // Too few replicas have the grant: a failover now could lose it, so it never counts.
            await this.remove(key, lockId, this.options.commandTimeoutMs);
            this.events.lock(key, {
              type: "replication-timeout",
              lockId,
              required: waitReplicas,
              acknowledged,
            });
            throw new ReplicationTimeoutError(waitReplicas, acknowledged);
          }
          // Fair: { 1, lockId, fence, inUse, leaseMs, nowMs }; plain: { 1, fence, inUse, nowMs }.
          const at = fair ? 2 : 1;
          const nowMs = num(reply[fair ? 5 : 3]);
          return {
            resource: key.resource,
            businessKey: key.businessKey,
            granted: true,
            lockId,
            fence: String(num(reply[at])),
            holder: { clientId: holder.clientId, ownerId: holder.ownerId },
            permits,
            grantedAt: nowMs,
            renewals: 0,
            expiresAt: nowMs + leaseMs,
            ttlMs: leaseMs,
            inUse: num(reply[at + 1]),
            totalPermits,
            tier: "redis",
          };
        }
        case Code.Refused:
          return {
            granted: false,
            inUse: num(reply[1]),
            totalPermits,
            retryAfterMs: num(reply[2]),
            queued: false,
            tier: "redis",
          };
        case Code.Queued:
          return {
            granted: false,
            inUse: num(reply[1]),
            totalPermits,
            retryAfterMs: 0,
            queued: true,
            tier: "redis",
          };
        case Code.BadInput:
          throw new InvalidArgumentError(
            "permits",
            "leaseMs, permits or totalPermits out of range",
          );
        case Code.NotBound:
          await this.rebind(key, "new master");
          break;
        case Code.EpochBelowFloor:
          await this.rebind(key, "epoch below floor");
          break;
        case Code.CounterExhausted:
          await this.rebind(key, "counter exhausted");
          break;
        default:
          throw new UnexpectedReplyError("semaphoreAcquire", reply);
      }
    }
    throw new LockUnavailableError("Redis node could not be bound to a fencing epoch", {
      reason: "fencing-epoch",
    });
  }

  async release(input: PermitRef): Promise<PermitRelease> {
    const { key, lockId } = checkPermitRef(input);
    const reply = await this.caller.call(
      "release",
      lockId,
      () =>
        ScriptBatcher.send(
          this.releases,
          this.client,
          semaphoreRelease,
          this.semaphoreKeys.forRelease(key),
          [lockId],
        ),
      (raw) => replyArray("semaphoreRelease", raw),
    );
    if (reply[0] !== Code.Ok) throw new NotHolderError(lockId, "expired");
    // A caller refused permits since the mark was last taken may be waiting (decision 0206).
    return {
      ...permitFromFacts(key, lockId, str(reply[1]), num(reply[2]), num(reply[3])),
      watched: num(reply[4]) === 1,
    };
  }

  async extend(input: PermitExtendInput): Promise<PermitView> {
    const { key, lockId } = checkPermitRef(input);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const reply = await this.caller.call(
      "extend",
      lockId,
      () =>
        ScriptBatcher.send(
          this.extends,
          this.client,
          semaphoreExtend,
          this.semaphoreKeys.grants(key),
          [lockId, leaseMs, LIMITS.maxLeaseMs],
        ),
      (raw) => replyArray("semaphoreExtend", raw),
      leaseMs,
    );
    if (reply[0] === Code.BadInput) throw new InvalidArgumentError("leaseMs", "out of range");
    if (reply[0] !== Code.Ok) throw new NotHolderError(lockId, "expired");
    return permitFromFacts(key, lockId, str(reply[1]), num(reply[2]), num(reply[3]));
  }

  async inspect(input: LockKey): Promise<SemaphoreView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const reply = await this.caller.call(
      "inspect",
      "",
      () => callScript(this.client, semaphoreInspect, this.semaphoreKeys.grants(key), []),
      (raw) => replyArray("semaphoreInspect", raw),
    );
    const nowMs = num(reply[0]);
    const holders = triples(key, reply.slice(2), nowMs);
    return {
      ...key,
      holders,
      inUse: holders.reduce((sum, grant) => sum + grant.permits, 0),
      totalPermits: reply[1] === "" ? null : Number(reply[1]),
      tier: "redis",
    };
  }

  async forceRelease(input: PermitForceReleaseInput): Promise<PermitView[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = input.lockId === undefined ? "" : validateLockId(input.lockId);
    return this.remove(key, lockId, this.options.commandTimeoutMs);
  }

  /**
   * The resource's keys with a live grant, found with SCAN over the grants' sorted sets
   * (see {@link listKeysByScan}); each is inspected, so expired grants are not listed.
   */
  list(input: SemaphoreListInput): Promise<SemaphoreKeyPage> {
    return listKeysByScan(this.client, input, "s", (key) => this.inspect(key), holdsPermits);
  }

  async leaveQueue(input: LockKey & { readonly waiterId: string }): Promise<boolean> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const waiterId = validateWaiterId(input.waiterId);
    const reply = await this.caller.call(
      "leave-queue",
      "",
      () => callScript(this.client, leaveQueue, this.semaphoreKeys.queue(key), [waiterId]),
      (raw) => replyArray("leaveQueue", raw),
    );
    return reply[0] === 1;
  }

  private async remove(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
    client: RedisClient = this.client,
  ): Promise<PermitView[]> {
    let raw: unknown;
    try {
      raw = await withTimeout(
        callScript(client, semaphoreForceRelease, this.semaphoreKeys.grants(key), [lockId]),
        timeoutMs,
      );
    } catch (error) {
      throw this.caller.failure("force-release", key, lockId, error, undefined);
    }
    const reply = replyArray("semaphoreForceRelease", raw);
    return triples(key, reply.slice(1), num(reply[0]));
  }
}

function num(value: unknown): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n)) throw new UnexpectedReplyError("semaphore", value);
  return n;
}

function str(value: unknown): string {
  if (typeof value !== "string") throw new UnexpectedReplyError("semaphore", value);
  return value;
}

/** Grants from a flat `lockId, expiresAt, facts, …` list. */
function triples(key: LockKey, flat: unknown[], nowMs: number): PermitView[] {
  const out: PermitView[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    out.push(permitFromFacts(key, str(flat[i]), str(flat[i + 2]), num(flat[i + 1]), nowMs));
  }
  return out;
}

/** A permit view from its facts string "permits|fence|grantedAt|renewals|clientId|ownerId". */
function permitFromFacts(
  key: LockKey,
  lockId: string,
  facts: string,
  expiresAt: number,
  nowMs: number,
): PermitView {
  const match = /^([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|(.*)$/s.exec(facts);
  if (!match) throw new UnexpectedReplyError("semaphore", facts);
  const holder: Holder = { clientId: match[5]!, ownerId: match[6]! };
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId,
    fence: match[2]!,
    holder,
    permits: Number(match[1]),
    grantedAt: Number(match[3]),
    renewals: Number(match[4]),
    expiresAt,
    ttlMs: Math.max(0, expiresAt - nowMs),
    tier: "redis",
  };
}
