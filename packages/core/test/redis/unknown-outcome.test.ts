import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { OutcomeUnknownError, type RedisLockStore, type StoreEvent } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

let redis: StandaloneRedis;
let store: RedisLockStore;
let events: StoreEvent[];

beforeAll(async () => {
  redis = await startRedis();
  ({ store, events } = await openRedisStore(
    { mode: "standalone", url: redis.url },
    { commandTimeoutMs: 200 },
  ));
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

test("a grant whose reply is lost is reported unknown, then released by its lockId", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  redis.pause();
  const outcome = await store
    .acquire({ ...key, holder: holder("a"), leaseMs: 3_000 })
    .catch((e: unknown) => e);
  expect(outcome).toBeInstanceOf(OutcomeUnknownError);
  const lockId = (outcome as OutcomeUnknownError).lockId;
  await sleep(300);
  // Redis now runs the queued script: the grant lands although the caller was told "unknown".
  redis.resume();
  await eventually(async () => {
    if (!events.some((e) => e.type === "outcome-unknown" && e.lockId === lockId && e.cleanedUp)) {
      throw new Error("cleanup not done yet");
    }
  }, 5_000);
  expect(await store.inspect(key)).toBeNull();
  const next = await store.acquire({ ...key, holder: holder("b"), leaseMs: 1_000 });
  expect(next.granted).toBe(true);
});
