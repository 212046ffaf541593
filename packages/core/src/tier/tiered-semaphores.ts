import { performance } from "node:perf_hooks";
import { LIMITS, LockUnavailableError, type LockKey, type Tier } from "@warden/contract";
import {
  checkSemaphoreAcquire,
  type PermitExtendInput,
  type PermitForceReleaseInput,
  type PermitRef,
  type PermitResult,
  type PermitRelease,
  type PermitView,
  type SemaphoreAcquireInput,
  type SemaphoreKeyPage,
  type SemaphoreStore,
  type SemaphoreView,
} from "../store/semaphore-store.js";
import type { TierSnapshot } from "./tier-snapshot.js";
import {
  DRAIN_CHECK_MS,
  allRemoved,
  checkTierAllowed,
  answersOf,
  listAcrossTiers,
  searchOrder,
  type ResourcePolicy,
  type TieredListInput,
} from "./tier-routing.js";

/** Input of {@link TieredSemaphores.list}: one tier's keys, or every tier's in turn. */
export type TieredSemaphoreListInput = TieredListInput;

/** A semaphore store whose fencing epoch floor follows the tier controller. */
export interface FencedSemaphoreStore extends SemaphoreStore {
  requireEpoch(epoch: number): void;
}

/** Where {@link TieredSemaphores} learns the fleet's tier: the mutex's TieredLocks. */
export interface TierSource {
  readonly tier: Tier;
  snapshot(): TierSnapshot;
  onTierChange(listener: (snapshot: TierSnapshot) => void): () => void;
}

/** The stores and the tier source {@link TieredSemaphores} routes between. */
export interface TieredSemaphoresParts {
  readonly tiers: TierSource;
  readonly redis: FencedSemaphoreStore;
  readonly mysql: FencedSemaphoreStore & { hasLivePermits(): Promise<boolean> };
  readonly local: SemaphoreStore;
  /**
   * How long after this instance left a shared tier its permits may still be live there:
   * the longest lease plus the time other instances take to follow a switch (they may renew
   * there until they do). @defaultValue LIMITS.maxLeaseMs + 5000
   */
  readonly switchDrainMs?: number;
  /** Called on close after the stores are closed. */
  readonly onClose?: () => Promise<void>;
}

/**
 * The drain's clock: monotonic. Its window is a duration from the switch, and a wall-clock
 * step on this host must neither end it early (the tier in force would grant past what the
 * tier left behind still holds) nor stretch it.
 */
const drainNow = (): number => performance.now();

/** The shared tier a drain is about, and until when (monotonic clock, ms) it may hold live permits. */
interface Drain {
  readonly from: "redis" | "mysql";
  untilMs: number;
}

/**
 * One semaphore API over the three tiers (docs/decisions/0160), following the mutex's tier
 * (TieredLocks): new grants go to the tier in force, within the resource's policy; release
 * goes to the tier that granted; extend only on the tier in force, so a permit left behind
 * on a tier the fleet has left runs out within one lease.
 *
 * Across a switch between the shared tiers, the tier left behind may still hold live permits
 * of a key. Until it surely holds none (a drain), every acquire first reads that tier's live
 * permits of the key and counts them against the total (`heldElsewhere`); when that tier
 * cannot be read, the acquire is refused with `retryAfterMs` until the drain ends. So the
 * permits live on both tiers together never exceed the total once every instance has followed
 * the switch. The drain lasts {@link TieredSemaphoresParts.switchDrainMs} after this instance
 * left the tier, and ends early when that tier is MySQL and it holds no live permit.
 */
export class TieredSemaphores {
  private drain: Drain | undefined;
  private lastShared: "redis" | "mysql" | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly switchDrainMs: number;
  private readonly unsubscribe: () => void;
  /** Acquires in flight per shared tier (see {@link acquire}'s drain). */
  private readonly inFlight = { redis: new Set<Promise<void>>(), mysql: new Set<Promise<void>>() };

  constructor(private readonly parts: TieredSemaphoresParts) {
    this.switchDrainMs = parts.switchDrainMs ?? LIMITS.maxLeaseMs + 5_000;
    const initial = parts.tiers.snapshot();
    this.requireEpoch(initial);
    if (initial.tier !== "local") {
      this.lastShared = initial.tier;
      // Other instances may have granted on the other shared tier before this one started.
      this.startDrain(initial.tier === "redis" ? "mysql" : "redis", drainNow());
    }
    this.unsubscribe = parts.tiers.onTierChange((next) => this.follow(next));
  }

  /** The tier new grants go to. */
  get tier(): Tier {
    return this.parts.tiers.tier;
  }

  /** True while a tier left behind may still hold live permits. */
  get draining(): boolean {
    return this.drain !== undefined && drainNow() < this.drain.untilMs;
  }

  async acquire(input: SemaphoreAcquireInput, policy: ResourcePolicy): Promise<PermitResult> {
    const tier = this.tier;
    checkTierAllowed(tier, policy);
    switch (tier) {
      case "redis":
      case "mysql": {
        const drain = this.drain;
        if (!drain || drain.from === tier || drainNow() >= drain.untilMs) {
          return this.track(tier, this.store(tier).acquire(input));
        }
        // Checked here so a bad input is refused as such, not as an unreadable old tier.
        checkSemaphoreAcquire(input);
        // Acquires this instance sent to the old tier before the switch settle first, so the
        // read below sees their grants.
        await Promise.allSettled([...this.inFlight[drain.from]]);
        const behind = await this.store(drain.from)
          .inspect(input)
          .catch(() => null);
        if (!behind) {
          return {
            granted: false,
            inUse: 0,
            totalPermits: input.totalPermits,
            retryAfterMs: Math.max(1, drain.untilMs - drainNow()),
            queued: false,
            tier,
          };
        }
        return this.track(
          tier,
          this.store(tier).acquire({
            ...input,
            heldElsewhere: (input.heldElsewhere ?? 0) + behind.inUse,
          }),
        );
      }
      case "local":
        return this.parts.local.acquire(input);
    }
  }

  /** Releases a grant on the tier that granted it. */
  release(input: PermitRef & { readonly tier: Tier }): Promise<PermitRelease> {
    return this.store(input.tier).release(input);
  }

  /**
   * Extends a grant, only on the tier in force: a permit on a tier the fleet has left is
   * refused (LockUnavailableError) and runs out with its lease, which bounds the drain.
   */
  extend(input: PermitExtendInput & { readonly tier: Tier }): Promise<PermitView> {
    if (input.tier !== this.tier) {
      return Promise.reject(
        new LockUnavailableError(
          `this permit was granted on ${input.tier} and the fleet is now on ${this.tier}: it cannot be renewed and runs out with its lease; acquire again`,
          { reason: "tier-change" },
        ),
      );
    }
    return this.store(input.tier).extend(input);
  }

  /**
   * The key's grants on every tier that holds some, the tier in force's view always first
   * among them. The tier in force must answer (LOCK_UNAVAILABLE when it does not: its
   * grants are unknown, not absent); another tier that fails counts as holding none
   * (docs/decisions/0200). Bad input is refused as such.
   */
  async inspect(key: LockKey): Promise<SemaphoreView[]> {
    const current = this.tier;
    const answers = await answersOf(searchOrder(current), current, (tier) =>
      this.store(tier).inspect(key),
    );
    return answers
      .filter(([tier, view]) => tier === current || view.holders.length > 0)
      .map(([, view]) => view);
  }

  /**
   * A resource's keys with live grants, as the stores list them (decision 0217): one tier's
   * pages with `tier`, else every tier in turn (see {@link listAcrossTiers}).
   */
  list(input: TieredSemaphoreListInput): Promise<SemaphoreKeyPage & { readonly tier: Tier }> {
    return listAcrossTiers(
      input,
      () => this.tier,
      (tier, asked) => this.store(tier).list(asked),
    );
  }

  /** Removes the key's grants (or one) from every tier that answers. */
  async forceRelease(input: PermitForceReleaseInput): Promise<PermitView[]> {
    return allRemoved(searchOrder(this.tier), (tier) => this.store(tier).forceRelease(input));
  }

  /** Gives up a fair waiter's place in the tier in force; places elsewhere lapse by heartbeat. */
  leaveQueue(input: LockKey & { readonly waiterId: string }): Promise<boolean> {
    return this.store(this.tier).leaveQueue(input);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    this.endDrainChecks();
    await Promise.allSettled([
      this.parts.redis.close(),
      this.parts.mysql.close(),
      this.parts.local.close(),
    ]);
    await this.parts.onClose?.();
  }

  private follow(next: TierSnapshot): void {
    this.requireEpoch(next);
    if (next.tier === "local") return;
    if (this.lastShared !== undefined && this.lastShared !== next.tier) {
      this.startDrain(this.lastShared, drainNow());
    }
    this.lastShared = next.tier;
  }

  private requireEpoch(snapshot: TierSnapshot): void {
    if (snapshot.tier === "mysql") this.parts.mysql.requireEpoch(snapshot.epoch);
    if (snapshot.tier === "redis") this.parts.redis.requireEpoch(snapshot.epoch);
  }

  /**
   * Starts (or restarts) the drain of `from`. The window counts from when this instance
   * noticed the switch; for MySQL a periodic check ends it as soon as no permit is live there
   * (none can appear: the MySQL store grants only while the shared tier says mysql).
   */
  private startDrain(from: "redis" | "mysql", leftAtMs: number): void {
    this.drain = { from, untilMs: leftAtMs + this.switchDrainMs };
    this.endDrainChecks();
    if (from !== "mysql") return;
    this.drainTimer = setInterval(() => void this.checkDrain(), DRAIN_CHECK_MS);
    this.drainTimer.unref();
  }

  private async checkDrain(): Promise<void> {
    const drain = this.drain;
    if (!drain || !this.draining || this.tier === "mysql") {
      this.endDrainChecks();
      return;
    }
    const live = await this.parts.mysql.hasLivePermits().catch(() => null);
    if (live === false && this.drain === drain) {
      this.drain = undefined;
      this.endDrainChecks();
    }
  }

  private endDrainChecks(): void {
    clearInterval(this.drainTimer);
    this.drainTimer = undefined;
  }

  /** Remembers an acquire in flight on a shared tier until it settles. */
  private track<T>(tier: "redis" | "mysql", acquire: Promise<T>): Promise<T> {
    const settled = acquire.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight[tier].add(settled);
    void settled.then(() => this.inFlight[tier].delete(settled));
    return acquire;
  }

  private store(tier: Tier): SemaphoreStore {
    return this.parts[tier];
  }
}
