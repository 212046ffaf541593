import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

let redis: StandaloneRedis;
let store: RedisLockStore;

beforeAll(async () => {
  redis = await startRedis();
  ({ store } = await openRedisStore({ mode: "standalone", url: redis.url }));
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

test("with Redis gone, an acquire says Redis is unreachable and nothing was sent, not that Redis refused, and when to retry", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  expect((await store.acquire({ ...key, holder: holder(), leaseMs: 1_000 })).granted).toBe(true);
  await redis.stop();
  const error = await eventually(async () => {
    const outcome = await store
      .acquire({ ...key, holder: holder(), leaseMs: 1_000 })
      .catch((e: unknown) => e);
    if (!(outcome instanceof LockUnavailableError)) throw new Error(`got ${String(outcome)}`);
    return outcome;
  }, 10_000);
  expect(error.message).toMatch(/^Redis is unreachable, so acquire was not sent/);
  expect(error.message).not.toMatch(/refused|enableOfflineQueue/);
  // It says when to try again, which a server-side wait pauses for (decision 0232).
  expect(error).toMatchObject({ reason: "store-unavailable", retryAfterMs: 250 });
});
