import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { OutcomeUnknownError, RedisSemaphoreStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";

let redis: StandaloneRedis;
let store: RedisSemaphoreStore;

beforeAll(async () => {
  redis = await startRedis();
  store = await RedisSemaphoreStore.open({
    topology: { mode: "standalone", url: redis.url },
    epochSource: new MemoryEpochSource(),
    commandTimeoutMs: 200,
  });
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

test("a permit whose reply is lost is reported unknown, then removed by its lockId", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  const input = { ...key, holder: holder("a"), leaseMs: 10_000, totalPermits: 1 };
  // Bind the node's epoch first, so the paused call is the grant itself.
  const warm = await store.acquire({ ...input, businessKey: "warm-up" });
  expect(warm.granted).toBe(true);
  redis.pause();
  const outcome = await store.acquire(input).catch((e: unknown) => e);
  expect(outcome).toBeInstanceOf(OutcomeUnknownError);
  await sleep(300);
  // Redis now runs the queued script: the grant lands although the caller was told "unknown".
  redis.resume();
  await eventually(async () => {
    const view = await store.inspect(key);
    if (view.holders.length > 0) throw new Error("cleanup not done yet");
  }, 4_000);
  const next = await store.acquire({ ...input, holder: holder("b") });
  expect(next.granted).toBe(true);
});
