import { LockUnavailableError } from "../errors/lock-unavailable-error.js";
import type { EventSink } from "../events/store-event.js";
import { LIMITS } from "../store/limits.js";
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
import type { AcquireResult, LeaseView, LockKey, Tier } from "../store/types.js";
import type { LeaseMirror } from "./lease-mirror.js";
import type { TierController } from "./tier-controller.js";
import type { TierSnapshot, TierTransitionRow } from "./tier-snapshot.js";

/** How often a recovery drain asks MySQL whether it still holds a live lease, in ms. */
const DRAIN_CHECK_MS = 250;

/** The parts of a resource's policy that decide where it may be granted. */
export interface ResourcePolicy {
  /** May move to MySQL when Redis is down. */
  readonly degrade: boolean;
  /** `allow`: in-process locks when no shared tier can grant (fail-open); `deny`: refuse. */
  readonly localFallback: "deny" | "allow";
  /** Replicas that must acknowledge a Redis grant. */
  readonly waitReplicas: number;
}

/** A store whose fencing epoch floor the controller raises after a switch. */
export interface FencedStore extends LockStore {
  requireEpoch(epoch: number): void;
  probe(): Promise<boolean>;
}

/** The stores and machinery {@link TieredLocks} routes between. */
export interface TieredLocksParts {
  readonly redis: FencedStore;
  readonly mysql: FencedStore & { hasLiveLeases(): Promise<boolean> };
  readonly local: LockStore;
  readonly controller: TierController;
  readonly mirror: LeaseMirror;
  /** Called on close after the parts are closed (e.g. to end a MySQL pool). */
  readonly onClose?: () => Promise<void>;
}

/**
 * One lock API over the three tiers: grants go to the tier the controller decided, within
 * what the resource's policy allows (S5); release and extend go to the tier that granted.
 * After a return to Redis, a key still leased in MySQL is refused in Redis until that
 * lease is released or expired (recovery drain, docs/decisions/0005).
 */
export class TieredLocks {
  /** While now is before this, Redis acquires first ask MySQL about their key. */
  private drainUntilMs = 0;
  /** Bumped by every return to Redis, so a check started for an older drain is ignored. */
  private drainGeneration = 0;
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(private readonly parts: TieredLocksParts) {
    parts.controller.onChange((next, previous) => this.follow(next, previous));
    this.follow(parts.controller.snapshot, undefined);
  }

  /** True while a return to Redis is still being drained (docs/decisions/0005). */
  get draining(): boolean {
    return Date.now() < this.drainUntilMs;
  }

  /** Current tier as decided by the controller. */
  get tier(): Tier {
    return this.parts.controller.snapshot.tier;
  }

  snapshot(): TierSnapshot {
    return this.parts.controller.snapshot;
  }

  async acquire(input: AcquireInput, policy: ResourcePolicy): Promise<AcquireResult> {
    switch (this.tier) {
      case "redis": {
        if (Date.now() < this.drainUntilMs) {
          const inMysql = await this.parts.mysql.inspect(input).catch((cause: unknown) => {
            throw new LockUnavailableError("cannot check MySQL leases while returning to Redis", {
              cause,
            });
          });
          if (inMysql)
            return { granted: false, holder: inMysql.holder, ttlMs: inMysql.ttlMs, tier: "mysql" };
        }
        return this.parts.redis.acquire({ ...input, waitReplicas: policy.waitReplicas });
      }
      case "mysql":
        if (!policy.degrade)
          throw new LockUnavailableError(
            "Redis is down and this resource does not degrade to MySQL",
          );
        return this.parts.mysql.acquire(input);
      case "local":
        if (policy.localFallback !== "allow") {
          throw new LockUnavailableError(
            "no tier can grant with cross-process exclusion (fail-closed resource)",
          );
        }
        return this.parts.local.acquire(input);
    }
  }

  release(input: ReleaseInput & { readonly tier: Tier }): Promise<ReleaseResult> {
    return this.store(input.tier).release(input);
  }

  extend(input: ExtendInput & { readonly tier: Tier }): Promise<LeaseView> {
    return this.store(input.tier).extend(input);
  }

  /** Looks in the current tier first, then in the others that answer. */
  async inspect(key: LockKey): Promise<LeaseView | null> {
    for (const tier of this.searchOrder()) {
      const found = await this.store(tier)
        .inspect(key)
        .catch(() => null);
      if (found) return found;
    }
    return null;
  }

  /** Live leases of a resource in one tier (the current one by default). */
  list(input: ListInput & { readonly tier?: Tier }): Promise<LeasePage> {
    return this.store(input.tier ?? this.tier).list(input);
  }

  /** Removes the lease from whichever tier holds it. */
  async forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    for (const tier of this.searchOrder()) {
      const removed = await this.store(tier)
        .forceRelease(input)
        .catch(() => null);
      if (removed) return removed;
    }
    return null;
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
  get mirrorStats(): { written: number; dropped: number } {
    return { written: this.parts.mirror.written, dropped: this.parts.mirror.dropped };
  }

  async close(): Promise<void> {
    this.endDrainChecks();
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
      if (previous && previous.tier !== "redis") this.startDrain();
    }
  }

  /**
   * The recovery drain: Redis acquires ask MySQL about their key until MySQL holds no
   * live lease. Checked every DRAIN_CHECK_MS: no live lease ends the drain at once (none
   * can appear: the MySQL tier grants only while the shared tier says mysql); live leases
   * push its end to a max lease from now, so leases renewed in MySQL keep it going. When
   * MySQL cannot be asked, the drain ends a max lease after the last answer that saw a
   * live lease: no lease can be renewed past that without MySQL.
   */
  private startDrain(): void {
    this.drainGeneration += 1;
    this.drainUntilMs = Date.now() + LIMITS.maxLeaseMs;
    this.endDrainChecks();
    this.drainTimer = setInterval(() => void this.checkDrain(), DRAIN_CHECK_MS);
    this.drainTimer.unref();
  }

  private async checkDrain(): Promise<void> {
    const generation = this.drainGeneration;
    if (!this.draining || this.tier !== "redis") {
      this.endDrainChecks();
      return;
    }
    const live = await this.parts.mysql.hasLiveLeases().catch(() => null);
    if (generation !== this.drainGeneration || live === null) return;
    if (live) {
      this.drainUntilMs = Math.max(this.drainUntilMs, Date.now() + LIMITS.maxLeaseMs);
    } else {
      this.drainUntilMs = 0;
      this.endDrainChecks();
    }
  }

  private endDrainChecks(): void {
    clearInterval(this.drainTimer);
    this.drainTimer = undefined;
  }

  private searchOrder(): Tier[] {
    const order: Tier[] = [this.tier, "redis", "mysql", "local"];
    return order.filter((tier, index) => order.indexOf(tier) === index);
  }

  private store(tier: Tier): LockStore {
    switch (tier) {
      case "redis":
        return this.parts.redis;
      case "mysql":
        return this.parts.mysql;
      case "local":
        return this.parts.local;
    }
  }
}

/** Fans one store event out to the mirror and the caller's sink. */
export function teeEvents(mirror: LeaseMirror, sink: EventSink | undefined): EventSink {
  return (event) => {
    mirror.record(event);
    sink?.(event);
  };
}
