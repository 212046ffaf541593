import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RateLimiter } from "../src/quota/rate-limiter.js";
import { RedisBuckets } from "../src/quota/redis-buckets.js";

// A tenant far below its quota must never be refused because the tokens an instance leased
// from Redis ran out while the next lease was still on its way (a spurious QUOTA_EXCEEDED).

let redis: StandaloneRedis;
let buckets: RedisBuckets;

beforeAll(async () => {
  redis = await startRedis();
  buckets = new RedisBuckets({ mode: "standalone", url: redis.url });
  // The client queues nothing offline: wait until it is connected.
  for (let i = 0; i < 50; i += 1) {
    const answered = await buckets
      .take(["w:{thr:warm-up}"], [{ ratePerSecond: 1, burst: 1 }], 0)
      .then(() => true)
      .catch(() => false);
    if (answered) return;
    await settle();
  }
  throw new Error("Redis never answered");
});
afterAll(async () => {
  await buckets?.close();
  await redis?.stop();
});

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
}

it("a burst larger than the leased batch is not refused while a refill is in flight", async () => {
  const limiter = new RateLimiter(buckets);
  const rate = 100_000; // a batch is 50 ms of it: 5 000 tokens
  expect(limiter.take("tenant:t1", rate, rate)).toBe(0);
  await settle(); // the first lease has landed: Redis answered, tokens are held
  expect(limiter.fleetWide).toBe(true);
  const waits: number[] = [];
  // One synchronous burst: no refill can land in between.
  for (let i = 0; i < 12_000; i += 1) waits.push(limiter.take("tenant:t1", rate, rate));
  expect(waits.filter((wait) => wait > 0)).toEqual([]);
});

it("a tenant over its quota is still refused fleet-wide", async () => {
  const limiter = new RateLimiter(buckets);
  const rate = 10;
  expect(limiter.take("tenant:t2", rate, rate)).toBe(0);
  await settle();
  expect(limiter.fleetWide).toBe(true);
  let refused = 0;
  for (let round = 0; round < 5; round += 1) {
    for (let i = 0; i < 20; i += 1) if (limiter.take("tenant:t2", rate, rate) > 0) refused += 1;
    await settle();
  }
  // 100 calls in ~0.5 s against 10/s with a burst of 10: most are refused.
  expect(refused).toBeGreaterThan(50);
});
