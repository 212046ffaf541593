import {
  LockUnavailableError,
  LIMITS,
  validateHolder,
  validateLeaseMs,
  validateLockKey,
  type AcquireResult,
  type LeaseView,
  type LockKey,
  type Tier,
} from "@warden/contract";
import type { EventSink } from "../events/store-event.js";
import {
  LOCK_DELAY_HOLDER,
  MAX_LOCK_DELAY_MS,
  validateLockDelayMs,
  type AcquireInput,
  type ExtendInput,
  type ForceReleaseInput,
  type LeaveQueueInput,
  type LeasePage,
  type ListInput,
  type LockDelayView,
  type LockStore,
  type QueuePlace,
  type ReadQueueInput,
  type ReleaseInput,
  type ReleaseResult,
} from "../store/lock-store.js";
import type { LeaseMirror, MirrorStats } from "./lease-mirror.js";
import type { TierController } from "./tier-controller.js";
import type { TierSnapshot, TierTransitionRow } from "./tier-snapshot.js";
import {
  RecoveryDrain,
  checkTierAllowed,
  firstFound,
  firstRemoved,
  searchOrder,
  type ResourcePolicy,
} from "./tier-routing.js";

export type { ResourcePolicy } from "./tier-routing.js";

/** A store whose fencing epoch floor the controller raises after a switch. */
export interface FencedStore extends LockStore {
  requireEpoch(epoch: number): void;
  probe(): Promise<boolean>;
}

/** The stores and machinery {@link TieredLocks} routes between. */
export interface TieredLocksParts {
  readonly redis: FencedStore;
  readonly mysql: FencedStore & {
    hasLiveLeases(): Promise<boolean>;
    hasLiveDelays(): Promise<boolean>;
    inspectDelay(key: LockKey): Promise<LockDelayView | null>;
  };
  readonly local: LockStore;
  readonly controller: TierController;
  readonly mirror: LeaseMirror;
  /** Called on close after the parts are closed (e.g. to end a MySQL pool). */
  readonly onClose?: () => Promise<void>;
}

/**
 * One lock API over the three tiers: grants go to the tier the controller decided, within
 * what the resource's policy allows (docs/design.md#fail-closed); release and extend go to the tier
 * that granted. After a return to Redis, a key still leased in MySQL is refused in Redis until that
 * lease is released or expired (recovery drain, docs/decisions/0005), and an acquire with a
 * lock-delay is refused while MySQL still holds the key back by one (docs/decisions/0178).
 */
export class TieredLocks {
  /** After a return to Redis: keys MySQL still holds a live lease of are refused. */
  private readonly leaseDrain: RecoveryDrain;
  /**
   * After a return to Redis: acquires that carry a lock-delay ask MySQL whether a delay
   * holds their key back there (docs/decisions/0178). Without an answer it lasts a max lease
   * plus a max delay: a lease live at the last answer ends within the one, its delay within both.
   */
  private readonly delayDrain: RecoveryDrain;

  constructor(private readonly parts: TieredLocksParts) {
    const onRedis = () => this.tier === "redis";
    this.leaseDrain = new RecoveryDrain(
      () => parts.mysql.hasLiveLeases(),
      LIMITS.maxLeaseMs,
      onRedis,
    );
    this.delayDrain = new RecoveryDrain(
      () => parts.mysql.hasLiveDelays(),
      LIMITS.maxLeaseMs + MAX_LOCK_DELAY_MS,
      onRedis,
    );
    parts.controller.onChange((next, previous) => this.follow(next, previous));
    this.follow(parts.controller.snapshot, undefined);
  }

  /** True while a return to Redis is still being drained (docs/decisions/0005). */
  get draining(): boolean {
    return this.leaseDrain.active;
  }

  /** Current tier as decided by the controller. */
  get tier(): Tier {
    return this.parts.controller.snapshot.tier;
  }

  snapshot(): TierSnapshot {
    return this.parts.controller.snapshot;
  }

  async acquire(input: AcquireInput, policy: ResourcePolicy): Promise<AcquireResult> {
    const tier = this.tier;
    switch (tier) {
      case "redis": {
        if (this.leaseDrain.active || this.delayDrain.active) {
          const inMysql = await this.heldBackInMysql(input);
          if (inMysql) return inMysql;
        }
        return this.parts.redis.acquire({ ...input, waitReplicas: policy.waitReplicas });
      }
      case "mysql":
      case "local":
        checkTierAllowed(tier, policy);
        return this.parts[tier].acquire(input);
    }
  }

  /**
   * Gives up a fair waiter's place (docs/decisions/0009) in the current tier's queue, where
   * its acquires put it; places in other tiers lapse by their heartbeat.
   */
  leaveQueue(input: LeaveQueueInput): Promise<boolean> {
    return this.store(this.tier).leaveQueue(input);
  }

  /**
   * The key's live fair-queue places in the current tier, where waiters' acquires put them
   * (docs/decisions/0155); places left in another tier lapse by their heartbeat.
   */
  readQueue(input: ReadQueueInput): Promise<QueuePlace[]> {
    return this.store(this.tier).readQueue(input);
  }

  release(input: ReleaseInput & { readonly tier: Tier }): Promise<ReleaseResult> {
    return this.store(input.tier).release(input);
  }

  extend(input: ExtendInput & { readonly tier: Tier }): Promise<LeaseView> {
    return this.store(input.tier).extend(input);
  }

  /** Looks in the current tier first, then in the others that answer. */
  async inspect(key: LockKey): Promise<LeaseView | null> {
    return firstFound(searchOrder(this.tier), this.tier, (tier) => this.store(tier).inspect(key));
  }

  /**
   * The key's lock-delay in force in the current tier, when it has no lease there
   * (docs/decisions/0175) — after a return to Redis, also one MySQL still holds
   * (docs/decisions/0178); null otherwise, or when no tier asked can answer.
   */
  async inspectDelay(key: LockKey): Promise<LockDelayView | null> {
    const store = this.store(this.tier);
    const found = (await store.inspectDelay?.(key).catch(() => null)) ?? null;
    if (found || this.tier !== "redis" || !this.delayDrain.active) return found;
    return this.parts.mysql.inspectDelay(key).catch(() => null);
  }

  /** Live leases of a resource in one tier (the current one by default). */
  list(input: ListInput & { readonly tier?: Tier }): Promise<LeasePage> {
    return this.store(input.tier ?? this.tier).list(input);
  }

  /** Removes the lease from whichever tier holds it. */
  async forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    return firstRemoved(searchOrder(this.tier), (tier) => this.store(tier).forceRelease(input));
  }

  history(limit: number): Promise<TierTransitionRow[]> {
    return this.parts.controller.history(limit);
  }

  override(tier: Tier | null, actor: string, reason: string): Promise<TierSnapshot> {
    return this.parts.controller.override(tier, actor, reason);
  }

  /** Calls `listener` on every tier or epoch change. */
  onTierChange(listener: (snapshot: TierSnapshot) => void): () => void {
    return this.parts.controller.onChange((next) => listener(next));
  }

  /** True when the current tier can grant at all (some resource could get a lock). */
  async probeReady(): Promise<boolean> {
    switch (this.tier) {
      case "redis":
        return this.parts.redis.probe();
      case "mysql":
        return this.parts.controller.mysqlReachable;
      case "local":
        return true;
    }
  }

  /** The mirror's counters, for metrics. */
  get mirrorStats(): MirrorStats {
    return this.parts.mirror.stats;
  }

  async close(): Promise<void> {
    this.leaseDrain.stop();
    this.delayDrain.stop();
    this.parts.controller.close();
    await this.parts.mirror.close();
    await Promise.allSettled([
      this.parts.redis.close(),
      this.parts.mysql.close(),
      this.parts.local.close(),
    ]);
    await this.parts.onClose?.();
  }

  private follow(next: TierSnapshot, previous: TierSnapshot | undefined): void {
    if (next.tier === "mysql") this.parts.mysql.requireEpoch(next.epoch);
    if (next.tier === "redis") {
      this.parts.redis.requireEpoch(next.epoch);
      // At start too (no previous tier): other instances may have granted in MySQL before
      // this one started, and such a lease lives as long as its holder renews it there.
      if (previous?.tier !== "redis") {
        this.leaseDrain.start();
        this.delayDrain.start();
      }
    }
  }

  /**
   * During a recovery drain, the refusal MySQL still owes `input`'s key: a live MySQL lease
   * (while leases drain), or — for an acquire that carries a lock-delay — a delay MySQL
   * holds the key back by (while delays drain); null when neither. Fails closed when MySQL
   * cannot be asked.
   */
  private async heldBackInMysql(input: AcquireInput): Promise<AcquireResult | null> {
    // Checked here so a bad input is refused as such, not as a MySQL that cannot be asked.
    validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    validateHolder(input.holder);
    validateLeaseMs(input.leaseMs);
    const askLease = this.leaseDrain.active;
    const askDelay = validateLockDelayMs(input.lockDelayMs) > 0 && this.delayDrain.active;
    if (!askLease && !askDelay) return null;
    const [lease, delay] = await Promise.all([
      askLease ? this.parts.mysql.inspect(input) : null,
      askDelay ? this.parts.mysql.inspectDelay(input) : null,
    ]).catch((cause: unknown) => {
      throw new LockUnavailableError("cannot check MySQL leases while returning to Redis", {
        cause,
      });
    });
    if (lease) return { granted: false, holder: lease.holder, ttlMs: lease.ttlMs, tier: "mysql" };
    if (delay) {
      return { granted: false, holder: LOCK_DELAY_HOLDER, ttlMs: delay.remainingMs, tier: "mysql" };
    }
    return null;
  }

  private store(tier: Tier): LockStore {
    return this.parts[tier];
  }
}

/** Fans one store event out to the mirror and the caller's sink. */
export function teeEvents(mirror: LeaseMirror, sink: EventSink | undefined): EventSink {
  return (event) => {
    mirror.record(event);
    sink?.(event);
  };
}
