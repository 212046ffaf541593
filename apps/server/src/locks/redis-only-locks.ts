import {
  LockUnavailableError,
  type AcquireInput,
  type AcquireResult,
  type ExtendInput,
  type ForceReleaseInput,
  type LeasePage,
  type LeaseView,
  type ListInput,
  type LockKey,
  type RedisLockStore,
  type ReleaseInput,
  type ReleaseResult,
  type Tier,
} from "@warden/core";
import type {
  ResourcePolicy,
  TierSnapshot,
  TierTransitionRow,
  TieredLocks,
} from "./tiered-locks-port.js";

/**
 * {@link TieredLocks} over one RedisLockStore, without a tier controller: the tier is
 * `redis` unless an operator overrides it, and an override away from Redis refuses every
 * grant (fail-closed) because there is no other tier here. For tests of the server and
 * for running the server before core's controller is wired (docs/decisions/0011).
 */
export class RedisOnlyLocks implements TieredLocks {
  private view: TierSnapshot;
  private readonly transitions: TierTransitionRow[] = [];
  private readonly listeners = new Set<(snapshot: TierSnapshot) => void>();

  constructor(
    private readonly redis: RedisLockStore,
    private readonly instanceId: string,
  ) {
    this.view = {
      tier: "redis",
      version: 1,
      epoch: redis.minEpoch,
      since: Date.now(),
      reason: "start",
      actor: "controller",
      instanceId,
      forced: false,
      decidedAlone: true,
    };
  }

  get tier(): Tier {
    return this.view.tier;
  }

  async acquire(input: AcquireInput, policy: ResourcePolicy): Promise<AcquireResult> {
    if (this.view.tier !== "redis") {
      throw new LockUnavailableError(`tier ${this.view.tier} is not available in this server`);
    }
    return this.redis.acquire({ ...input, waitReplicas: policy.waitReplicas });
  }

  release(input: ReleaseInput & { tier: Tier }): Promise<ReleaseResult> {
    return this.redis.release(input);
  }

  extend(input: ExtendInput & { tier: Tier }): Promise<LeaseView> {
    return this.redis.extend(input);
  }

  inspect(key: LockKey): Promise<LeaseView | null> {
    return this.redis.inspect(key);
  }

  list(input: ListInput): Promise<LeasePage> {
    return this.redis.list(input);
  }

  forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    return this.redis.forceRelease(input);
  }

  snapshot(): TierSnapshot {
    return this.view;
  }

  async history(limit: number): Promise<TierTransitionRow[]> {
    return this.transitions.slice(-limit).reverse();
  }

  async override(tier: Tier | null, actor: string, reason: string): Promise<TierSnapshot> {
    const next: TierSnapshot = {
      ...this.view,
      tier: tier ?? "redis",
      version: this.view.version + 1,
      since: Date.now(),
      reason,
      actor,
      forced: tier !== null,
    };
    this.transitions.push({
      id: String(next.version),
      fromTier: this.view.tier,
      toTier: next.tier,
      epoch: next.epoch,
      reason,
      actor,
      instanceId: this.instanceId,
      at: next.since,
    });
    this.view = next;
    for (const listener of this.listeners) listener(next);
    return next;
  }

  onTierChange(listener: (snapshot: TierSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  probeReady(): Promise<boolean> {
    return this.view.tier === "redis" ? this.redis.probe() : Promise.resolve(false);
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}
