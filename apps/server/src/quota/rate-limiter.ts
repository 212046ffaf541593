import { performance } from "node:perf_hooks";
import { TokenBucket } from "./token-bucket.js";

/**
 * One token bucket per key (tenant id, login user, client address), on the monotonic
 * clock. Per instance: behind N instances a tenant gets up to N× its quota (documented
 * in docs/decisions/0014). Idle buckets are swept so the map stays small.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { bucket: TokenBucket; lastMs: number }>();

  constructor(private readonly idleMs = 60_000) {}

  /** Takes a token from `key`'s bucket; returns 0 or the ms to wait. */
  take(key: string, ratePerSecond: number, burst: number): number {
    const now = performance.now();
    let entry = this.buckets.get(key);
    if (!entry) {
      if (this.buckets.size > 10_000) this.sweep(now);
      entry = { bucket: new TokenBucket(ratePerSecond, burst, now), lastMs: now };
      this.buckets.set(key, entry);
    } else {
      entry.bucket.reconfigure(ratePerSecond, burst);
    }
    entry.lastMs = now;
    return entry.bucket.take(now);
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.buckets) {
      if (now - entry.lastMs > this.idleMs) this.buckets.delete(key);
    }
  }
}
