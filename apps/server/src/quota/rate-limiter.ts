import { performance } from "node:perf_hooks";
import type { BucketRate, RedisBuckets } from "./redis-buckets.js";
import { TokenBucket } from "./token-bucket.js";

// Tokens a shared (Redis) bucket hands an instance at a time: 50 ms of the rate. The hot
// path then spends them without a round trip, and the fleet exceeds the rate by at most
// one batch per instance.
const BATCH_OF_RATE = 0.05;
// Without an answer from Redis this recent, a key with no leased tokens is decided by this
// instance's own bucket while a lease is asked for (a first call, or one after a quiet
// spell, is not refused for want of a round trip).
const ANSWER_FRESH_MS = 1_000;
// After a failed Redis take, per-instance buckets decide for this long before Redis is
// asked again.
const REDIS_BACKOFF_MS = 1_000;

interface Lease {
  tokens: number;
  /** When Redis last answered for this key. */
  answeredAt: number;
  /** Until when Redis said the bucket is empty. */
  emptyUntil: number;
  refilling: boolean;
  lastMs: number;
}

/**
 * Token buckets per key (tenant quota, login user and address, unknown-key address).
 * With `shared` (Redis) the buckets hold for the whole fleet; without it, or while Redis
 * does not answer, each instance keeps its own buckets with the same rates ("fail open to
 * per-instance limits": a lock service must not lose its API because the throttle store is
 * down, and an attacker then gets at most N× the rate behind N instances, as before;
 * docs/decisions/0101). Idle entries are swept so the maps stay small.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { bucket: TokenBucket; lastMs: number }>();
  private readonly leases = new Map<string, Lease>();
  private redisDownUntil = 0;

  constructor(
    private readonly shared: RedisBuckets | null = null,
    private readonly idleMs = 60_000,
  ) {}

  /** Whether takes currently go to the shared store (false: per-instance fallback). */
  get fleetWide(): boolean {
    return this.shared !== null && performance.now() >= this.redisDownUntil;
  }

  /**
   * Takes a token from `key`'s bucket without waiting for I/O; returns 0 or the ms to
   * wait. Fleet-wide: spends tokens leased from Redis in batches (at most 1.5 batches held
   * per instance) and leases more in the background; a key with no tokens and no recent
   * answer from Redis (a first call) is decided by this instance's own bucket meanwhile.
   */
  take(key: string, ratePerSecond: number, burst: number): number {
    if (!this.fleetWide) return this.takeLocal(key, ratePerSecond, burst);
    const now = performance.now();
    let lease = this.leases.get(key);
    if (!lease) {
      if (this.leases.size > 10_000) this.sweep(now);
      lease = { tokens: 0, answeredAt: -Infinity, emptyUntil: 0, refilling: false, lastMs: now };
      this.leases.set(key, lease);
    }
    lease.lastMs = now;
    const batch = Math.max(1, Math.min(burst, Math.ceil(ratePerSecond * BATCH_OF_RATE)));
    if (lease.tokens >= 1) {
      lease.tokens -= 1;
      if (lease.tokens < batch / 2) this.refill(key, lease, { ratePerSecond, burst }, batch);
      return 0;
    }
    if (lease.emptyUntil > now) return Math.ceil(lease.emptyUntil - now);
    const unknown = now - lease.answeredAt > ANSWER_FRESH_MS;
    this.refill(key, lease, { ratePerSecond, burst }, batch);
    // Redis's last answer handed out tokens (the key is below its rate): the leased batch ran
    // out before the next one arrived, which is no reason to refuse. This instance's own
    // bucket bridges the gap. A key Redis said was empty is refused until it refills.
    if (unknown || lease.emptyUntil === 0) return this.takeLocal(key, ratePerSecond, burst);
    return Math.max(1, Math.ceil(1000 / ratePerSecond));
  }

  /**
   * Takes one token from every bucket of `keys` at once (all or none), waiting for Redis;
   * returns 0 or the ms to wait. For rare calls (logins, unknown keys). With `peek`, takes
   * nothing and only says whether a token is there.
   */
  async takeAll(
    keys: readonly string[],
    rates: readonly BucketRate[],
    options: { readonly peek?: boolean } = {},
  ): Promise<number> {
    if (this.fleetWide && this.shared) {
      try {
        const answer = await this.shared.take(keys.map(redisKey), rates, options.peek ? 0 : 1);
        return answer.got >= 1 || (options.peek && answer.waitMs === 0) ? 0 : answer.waitMs;
      } catch {
        this.redisDownUntil = performance.now() + REDIS_BACKOFF_MS;
      }
    }
    let waitMs = 0;
    keys.forEach((key, i) => {
      const rate = rates[i]!;
      const bucket = this.localBucket(key, rate.ratePerSecond, rate.burst, performance.now());
      waitMs = Math.max(
        waitMs,
        options.peek ? bucket.peek(performance.now()) : bucket.take(performance.now()),
      );
    });
    return waitMs;
  }

  private refill(key: string, lease: Lease, rate: BucketRate, batch: number): void {
    if (lease.refilling || !this.shared) return;
    lease.refilling = true;
    this.shared
      .take([redisKey(key)], [rate], batch)
      .then(
        ({ got, waitMs }) => {
          const now = performance.now();
          lease.tokens += got;
          lease.answeredAt = now;
          lease.emptyUntil = got === 0 ? now + waitMs : 0;
        },
        () => {
          this.redisDownUntil = performance.now() + REDIS_BACKOFF_MS;
        },
      )
      .finally(() => {
        lease.refilling = false;
      });
  }

  private takeLocal(key: string, ratePerSecond: number, burst: number): number {
    const now = performance.now();
    return this.localBucket(key, ratePerSecond, burst, now).take(now);
  }

  private localBucket(key: string, ratePerSecond: number, burst: number, now: number) {
    let entry = this.buckets.get(key);
    if (!entry) {
      if (this.buckets.size > 10_000) this.sweep(now);
      entry = { bucket: new TokenBucket(ratePerSecond, burst, now), lastMs: now };
      this.buckets.set(key, entry);
    } else {
      entry.bucket.reconfigure(ratePerSecond, burst);
    }
    entry.lastMs = now;
    return entry.bucket;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.buckets) {
      if (now - entry.lastMs > this.idleMs) this.buckets.delete(key);
    }
    for (const [key, lease] of this.leases) {
      if (now - lease.lastMs > this.idleMs) this.leases.delete(key);
    }
  }
}

// One hash tag per limiter key: a tenant's quota lives on one cluster slot, and the
// buckets of one takeAll (which share a prefix before `|`) on one slot together.
function redisKey(key: string): string {
  const cut = key.indexOf("|");
  const tag = cut < 0 ? key : key.slice(0, cut);
  return `w:{thr:${tag}}:${key}`;
}
