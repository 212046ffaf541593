import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { RedisLockStore } from "../../src/index.js";
import { expectArrivalOrderAcrossStores } from "../support/fair-order.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { openRedisStore } from "../support/redis-target.js";

let redis: StandaloneRedis;
let a: RedisLockStore;
let b: RedisLockStore;
let raw: Redis;

beforeAll(async () => {
  redis = await startRedis();
  const epochSource = new MemoryEpochSource();
  ({ store: a } = await openRedisStore({ mode: "standalone", url: redis.url }, { epochSource }));
  ({ store: b } = await openRedisStore({ mode: "standalone", url: redis.url }, { epochSource }));
  raw = new Redis(redis.url);
});

afterAll(async () => {
  raw?.disconnect();
  await a?.close();
  await b?.close();
  await redis?.stop();
});

test("the queue lives in Redis: waiters arriving through two instances are granted in arrival order", async () => {
  await expectArrivalOrderAcrossStores([a, b], uniqueResource());
});

test("a queue nobody renews leaves nothing behind in Redis", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "k" };
  const held = await a.acquire({ ...key, holder: holder("h"), leaseMs: 10_000 });
  expect(held.granted).toBe(true);
  await b.acquire({
    ...key,
    holder: holder("w"),
    leaseMs: 10_000,
    fair: { waiterId: "w", heartbeatMs: 200 },
  });
  expect(await raw.keys(`w:{${resource}#*}:q*`)).toHaveLength(2);
  await sleep(350);
  expect(await raw.keys(`w:{${resource}#*}:q*`)).toEqual([]);
});
