import { LIMITS, LockUnavailableError, type LockKey, type Tier } from "@warden/contract";
import {
  checkRwAcquire,
  type RwAcquireInput,
  type RwAcquireResult,
  type RwExtendInput,
  type RwForceReleaseInput,
  type RwKeyView,
  type RwLeaseView,
  type RwLockStore,
  type RwMode,
  type RwReleaseInput,
  type RwReleaseResult,
} from "../store/rw-lock-store.js";
import type { TierSnapshot } from "./tier-snapshot.js";
import {
  RecoveryDrain,
  allFound,
  checkTierAllowed,
  firstFound,
  searchOrder,
  type ResourcePolicy,
} from "./tier-routing.js";

/** Where the fleet's tier comes from: {@link TieredLocks} itself (or its controller). */
export interface TierSource {
  snapshot(): TierSnapshot;
  onTierChange(listener: (snapshot: TierSnapshot) => void): () => void;
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
 * readers block Redis writers.
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
    return firstFound(searchOrder(this.tier), (tier) => this.store(tier).inspect(key));
  }

  /** Removes the key's grants (or `lockId`'s) from every tier that answers. */
  async forceRelease(input: RwForceReleaseInput): Promise<RwLeaseView[]> {
    return allFound(searchOrder(this.tier), (tier) => this.store(tier).forceRelease(input));
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
      if (!initial && this.lastTier !== "redis") this.drain.start();
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
