import { LIMITS, LockUnavailableError, type LockKey, type Tier } from "@warden/contract";
import {
  checkRwAcquire,
  checkRwWithdrawIntent,
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
  type RwReleaseInput,
  type RwReleaseResult,
  type RwWithdrawIntentInput,
} from "../store/rw-lock-store.js";
import type { TierSnapshot } from "./tier-snapshot.js";
import {
  RecoveryDrain,
  allRemoved,
  checkTierAllowed,
  firstFound,
  listAcrossTiers,
  searchOrder,
  type ResourcePolicy,
} from "./tier-routing.js";

/** Where the fleet's tier comes from: {@link TieredLocks} itself (or its controller). */
export interface TierSource {
  snapshot(): TierSnapshot;
  onTierChange(listener: (snapshot: TierSnapshot) => void): () => void;
}

/** Input of {@link TieredRwLocks.list}: one tier's keys, or every tier's in turn. */
export interface TieredRwListInput extends RwListInput {
  /** Only this tier; without it the current tier, then the others (see {@link searchOrder}). */
  readonly tier?: Tier;
}

/** A read-write store whose epoch floor follows the tier switches. */
export interface FencedRwStore extends RwLockStore {
  requireEpoch(epoch: number): void;
}

/** The stores {@link TieredRwLocks} routes between. */
export interface TieredRwLocksParts {
  readonly tiers: TierSource;
  readonly redis: FencedRwStore;
  readonly mysql: FencedRwStore & { hasLiveGrants(): Promise<boolean> };
  readonly local: RwLockStore;
}

/**
 * Read-write locks over the three tiers, routed like the mutex (decision 0165): new grants go
 * to the tier the controller decided, within the resource's policy; release and extend go to
 * the tier that granted. Each switch raises the epoch floor of the store it lands on, so the
 * first grant there carries a fence above every grant of the tier it left. After a return to
 * Redis, a Redis grant first asks MySQL about its key while MySQL holds any live read-write
 * grant (the recovery drain of decision 0005): a MySQL writer blocks every Redis grant, MySQL
 * readers block Redis writers. An instance that starts on Redis drains too (decision 0185):
 * other instances may have granted in MySQL before it started.
 */
export class TieredRwLocks {
  /** As TieredLocks' drain: until MySQL holds no live read-write grant. */
  private readonly drain: RecoveryDrain;
  private lastTier: Tier;
  private readonly unsubscribe: () => void;

  constructor(private readonly parts: TieredRwLocksParts) {
    this.drain = new RecoveryDrain(
      () => parts.mysql.hasLiveGrants(),
      LIMITS.maxLeaseMs,
      () => this.tier === "redis",
    );
    const first = parts.tiers.snapshot();
    this.lastTier = first.tier;
    this.follow(first, true);
    this.unsubscribe = parts.tiers.onTierChange((next) => this.follow(next, false));
  }

  /** The tier new grants go to. */
  get tier(): Tier {
    return this.parts.tiers.snapshot().tier;
  }

  /** True while a return to Redis is still being drained. */
  get draining(): boolean {
    return this.drain.active;
  }

  acquireRead(input: RwAcquireInput, policy: ResourcePolicy): Promise<RwAcquireResult> {
    return this.acquire("read", input, policy);
  }

  acquireWrite(input: RwAcquireInput, policy: ResourcePolicy): Promise<RwAcquireResult> {
    return this.acquire("write", input, policy);
  }

  private async acquire(
    mode: RwMode,
    input: RwAcquireInput,
    policy: ResourcePolicy,
  ): Promise<RwAcquireResult> {
    const tier = this.tier;
    checkTierAllowed(tier, policy);
    const store = this.store(tier);
    if (tier === "redis" && this.draining) {
      // Checked here so a bad input is refused as such, not as a MySQL that cannot be asked.
      checkRwAcquire(input);
      const inMysql = await this.parts.mysql.inspect(input).catch((cause: unknown) => {
        throw new LockUnavailableError(
          "cannot check MySQL read-write grants while returning to Redis",
          {
            cause,
          },
        );
      });
      if (inMysql?.writer) {
        return refusedBy(mode, "write-held", [inMysql.writer]);
      }
      if (mode === "write" && inMysql && inMysql.readers.length > 0) {
        return refusedBy(mode, "read-held", inMysql.readers);
      }
    }
    return mode === "read" ? store.acquireRead(input) : store.acquireWrite(input);
  }

  release(input: RwReleaseInput & { readonly tier: Tier }): Promise<RwReleaseResult> {
    return this.store(input.tier).release(input);
  }

  extend(input: RwExtendInput & { readonly tier: Tier }): Promise<RwLeaseView> {
    return this.store(input.tier).extend(input);
  }

  /** The key as the current tier sees it, then the others that answer. */
  async inspect(key: LockKey): Promise<RwKeyView | null> {
    return firstFound(searchOrder(this.tier), this.tier, (tier) => this.store(tier).inspect(key));
  }

  /**
   * A resource's keys with live grants, as the stores list them (decision 0185): one tier's
   * pages with `tier`, else every tier in turn (see {@link listAcrossTiers}).
   */
  async list(input: TieredRwListInput): Promise<RwKeyPage & { readonly tier: Tier }> {
    return listAcrossTiers(
      input,
      () => this.tier,
      (tier, asked) => this.store(tier).list(asked),
    );
  }

  /** Removes the key's grants (or `lockId`'s) from every tier that answers. */
  async forceRelease(input: RwForceReleaseInput): Promise<RwLeaseView[]> {
    return allRemoved(searchOrder(this.tier), (tier) => this.store(tier).forceRelease(input));
  }

  /**
   * Withdraws a writer's intent on the key (a wait that ended without a grant) from every
   * tier in search order: the wait may have registered it on a tier it has switched away
   * from since. A tier that fails is skipped: an intent left there lapses by itself within
   * its `intentMs`, so withdrawing is only a way to let readers in sooner, never needed for
   * correctness. Bad input is `InvalidArgumentError`; true when some tier withdrew a live
   * intent.
   */
  async withdrawIntent(input: RwWithdrawIntentInput): Promise<boolean> {
    const { key, holder } = checkRwWithdrawIntent(input);
    let withdrawn = false;
    for (const tier of searchOrder(this.tier)) {
      const found = await this.store(tier)
        .withdrawIntent({ ...key, holder })
        .catch(() => false);
      withdrawn ||= found;
    }
    return withdrawn;
  }

  /** Stops following the tier and closes the three stores. */
  async close(): Promise<void> {
    this.unsubscribe();
    this.drain.stop();
    await Promise.allSettled([
      this.parts.redis.close(),
      this.parts.mysql.close(),
      this.parts.local.close(),
    ]);
  }

  private follow(next: TierSnapshot, initial: boolean): void {
    if (next.tier === "mysql") this.parts.mysql.requireEpoch(next.epoch);
    if (next.tier === "redis") {
      this.parts.redis.requireEpoch(next.epoch);
      // At start too, as the mutex's TieredLocks: other instances may have granted in MySQL
      // before this one started, and such a grant lives as long as its holder renews it.
      if (initial || this.lastTier !== "redis") this.drain.start();
    }
    this.lastTier = next.tier;
  }

  private store(tier: Tier): RwLockStore {
    return this.parts[tier];
  }
}

function refusedBy(
  mode: RwMode,
  reason: "write-held" | "read-held",
  blockers: readonly RwLeaseView[],
): RwAcquireResult {
  return {
    granted: false,
    mode,
    reason,
    holders: blockers.map((g) => g.holder),
    retryAfterMs: Math.max(1, ...blockers.map((g) => g.ttlMs)),
    tier: "mysql",
  };
}
