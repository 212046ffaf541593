import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { OutcomeUnknownError, RedisRwLockStore, type StoreEvent } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { mustGrant } from "./rw-lock-store-conformance.js";

let redis: StandaloneRedis;
let store: RedisRwLockStore;
const events: StoreEvent[] = [];

beforeAll(async () => {
  redis = await startRedis();
  store = await RedisRwLockStore.open({
    topology: { mode: "standalone", url: redis.url },
    epochSource: new MemoryEpochSource(),
    onEvent: (event) => events.push(event),
    commandTimeoutMs: 200,
  });
  // Bind the node's epoch first, so the delayed script below grants rather than asks for one.
  const warm = mustGrant(
    await store.acquireWrite({
      resource: "warm",
      businessKey: "k",
      holder: holder(),
      leaseMs: 1_000,
    }),
  );
  await store.release({ resource: "warm", businessKey: "k", lockId: warm.lockId });
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

test("a write grant whose reply is lost is reported unknown, then removed by its lockId", async () => {
  const key = { resource: uniqueResource("rw-unknown"), businessKey: "k" };
  redis.pause();
  const outcome = await store
    .acquireWrite({ ...key, holder: holder("a"), leaseMs: 3_000 })
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
  mustGrant(await store.acquireRead({ ...key, holder: holder("b"), leaseMs: 1_000 }));
});
