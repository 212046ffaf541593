import { scriptCalls, startRedis, type StandaloneRedis } from "@warden/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  FENCE_LAYOUT,
  NotHolderError,
  OutcomeUnknownError,
  QUEUED_HOLDER,
  type AcquireResult,
  type RedisLockStore,
  type StoreEvent,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// Decision 0213: on standalone and sentinel the first plain acquire (or release) of a turn
// goes to Redis at once and the rest of the turn's go together in one script call, and each
// caller still gets the answer it would get alone.

let redis: StandaloneRedis;
let raw: Redis;
let store: RedisLockStore;
let events: StoreEvent[];

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
  ({ store, events } = await openRedisStore(
    { mode: "standalone", url: redis.url },
    { commandTimeoutMs: 200 },
  ));
});

afterAll(async () => {
  raw?.disconnect();
  await store?.close();
  await redis?.stop();
});

function fenceOf(grant: { fence: string | null }): bigint {
  if (grant.fence === null) throw new Error("a Redis grant has a fence");
  return BigInt(grant.fence);
}

function grantOf(result: AcquireResult): Extract<AcquireResult, { granted: true }> {
  if (!result.granted) throw new Error(`not granted: ${JSON.stringify(result)}`);
  return result;
}

test("plain acquires made in one turn are two script calls, each answered as if alone", async () => {
  const resource = uniqueResource();
  const key = (businessKey: string) => ({ resource, businessKey });
  const a = holder("a");
  const b = holder("b");
  const c = holder("c");
  const heldByA = grantOf(await store.acquire({ ...key("held"), holder: a, leaseMs: 5_000 }));
  const heldByB = grantOf(await store.acquire({ ...key("mine"), holder: b, leaseMs: 5_000 }));
  // A batch first, so the batch script is loaded and each call below is one EVALSHA.
  await Promise.all(
    [1, 2, 3].map((i) => store.acquire({ ...key(`w${i}`), holder: a, leaseMs: 5_000 })),
  );
  await sleep(100);

  const before = await scriptCalls(raw);
  const [fresh, refused, reentered, first, second, ...many] = await Promise.all([
    store.acquire({ ...key("fresh"), holder: b, leaseMs: 5_000 }),
    store.acquire({ ...key("held"), holder: b, leaseMs: 5_000 }),
    store.acquire({ ...key("mine"), holder: b, leaseMs: 5_000 }),
    // The same key twice in one call: the first is granted, the second sees its lease.
    store.acquire({ ...key("twice"), holder: b, leaseMs: 5_000 }),
    store.acquire({ ...key("twice"), holder: c, leaseMs: 5_000 }),
    ...Array.from({ length: 20 }, (_, i) =>
      store.acquire({ ...key(`many-${i}`), holder: c, leaseMs: 5_000 }),
    ),
  ]);
  // The first alone, the other 24 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);

  const freshGrant = grantOf(fresh);
  expect(freshGrant).toMatchObject({ reentry: 1, reentered: false, tier: "redis", renewals: 0 });
  expect(freshGrant.ttlMs).toBe(5_000);
  expect(refused).toMatchObject({ granted: false, holder: a, tier: "redis" });
  expect((refused as { ttlMs: number }).ttlMs).toBeGreaterThan(4_000);
  expect(grantOf(reentered)).toMatchObject({
    reentered: true,
    reentry: 2,
    lockId: heldByB.lockId,
    fence: heldByB.fence,
  });
  const firstGrant = grantOf(first);
  expect(second).toMatchObject({ granted: false, holder: b });

  // Every new grant has a fence of the epoch bound before the batch (one epoch check for the
  // whole call found it), above the fences the key's shard minted before. Fences are
  // unique per shard counter, not per resource (keys.ts), so only their epoch is compared.
  const span = BigInt(FENCE_LAYOUT.counterSpan);
  const epoch = fenceOf(heldByA) / span;
  for (const grant of [freshGrant, firstGrant, ...many.map(grantOf)]) {
    expect(fenceOf(grant) / span).toBe(epoch);
    expect(fenceOf(grant) % span > 0n).toBe(true);
  }
  // The stored leases are the ones the replies describe.
  const view = await store.inspect(key("twice"));
  expect(view).toMatchObject({ lockId: firstGrant.lockId, fence: firstGrant.fence, holder: b });
});

test("fair acquires made in one turn are two script calls, queued in the order made", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "k" };
  const fair = (waiterId: string) => ({ waiterId, heartbeatMs: 5_000 });
  const held = grantOf(await store.acquire({ ...key, holder: holder("h"), leaseMs: 5_000 }));
  // A batch first, so the batch script is loaded and each call below is one EVALSHA.
  await Promise.all(
    [1, 2, 3].map((i) =>
      store.acquire({
        resource,
        businessKey: `warm-${i}`,
        holder: holder("x"),
        leaseMs: 5_000,
        fair: fair(`x${i}`),
      }),
    ),
  );
  await sleep(100);

  const before = await scriptCalls(raw);
  const waiters = ["w1", "w2", "w3", "w4", "w5"];
  const [fresh, ...queued] = await Promise.all([
    store.acquire({
      resource,
      businessKey: "free",
      holder: holder("f"),
      leaseMs: 5_000,
      fair: fair("f"),
    }),
    ...waiters.map((w) =>
      store.acquire({ ...key, holder: holder(w), leaseMs: 5_000, fair: fair(w) }),
    ),
  ]);
  // The first alone, the other five in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);
  expect(grantOf(fresh)).toMatchObject({ reentry: 1, tier: "redis" });
  for (const refusal of queued) {
    expect(refusal).toMatchObject({ granted: false, holder: held.holder });
  }
  const [queueKey] = await raw.keys(`w:{${resource}#*}:q:k`);
  expect(await raw.zrange(queueKey!, 0, -1)).toEqual(waiters);

  // Once the key is free, only the head of the queue may take it, in one batch or not.
  await store.release({ ...key, lockId: held.lockId });
  const [second, first] = await Promise.all([
    store.acquire({ ...key, holder: holder("w2"), leaseMs: 5_000, fair: fair("w2") }),
    store.acquire({ ...key, holder: holder("w1"), leaseMs: 5_000, fair: fair("w1") }),
  ]);
  expect(second).toMatchObject({ granted: false, holder: QUEUED_HOLDER });
  expect(grantOf(first).fence).not.toBeNull();
  expect(await raw.zrange(queueKey!, 0, -1)).toEqual(["w2", "w3", "w4", "w5"]);
});

test("releases made in one turn are two script calls; a wrong lockId fails only its own", async () => {
  const resource = uniqueResource();
  const h = holder("r");
  const grants = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      store.acquire({ resource, businessKey: `k${i}`, holder: h, leaseMs: 5_000 }).then(grantOf),
    ),
  );
  const before = await scriptCalls(raw);
  const outcomes = await Promise.allSettled(
    grants.map((g, i) =>
      store.release({
        resource,
        businessKey: `k${i}`,
        // The last one names another grant's lockId: the key is held under a different one.
        lockId: i === 5 ? grants[0]!.lockId : g.lockId,
      }),
    ),
  );
  // The first alone, the other 5 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);
  for (const outcome of outcomes.slice(0, 5)) {
    expect(outcome).toMatchObject({ status: "fulfilled", value: { released: true, reentry: 0 } });
  }
  const wrong = outcomes[5]!;
  expect(wrong.status).toBe("rejected");
  expect((wrong as PromiseRejectedResult).reason).toBeInstanceOf(NotHolderError);
  for (let i = 0; i < 5; i++)
    expect(await store.inspect({ resource, businessKey: `k${i}` })).toBeNull();
  expect(await store.inspect({ resource, businessKey: "k5" })).toMatchObject({
    lockId: grants[5]!.lockId,
  });
});

test("extends made in one turn are two script calls; a wrong lockId or a gone lease fails only its own", async () => {
  const resource = uniqueResource();
  const h = holder("x");
  const grants = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      store.acquire({ resource, businessKey: `k${i}`, holder: h, leaseMs: 2_000 }).then(grantOf),
    ),
  );
  // k7's lease is gone before the extends: the store must say it expired.
  await store.release({ resource, businessKey: "k7", lockId: grants[7]!.lockId });
  const before = await scriptCalls(raw);
  const outcomes = await Promise.allSettled(
    grants.map((g, i) =>
      store.extend({
        resource,
        businessKey: `k${i}`,
        // k6 names another grant's lockId: the key is held under a different one.
        lockId: i === 6 ? grants[0]!.lockId : g.lockId,
        leaseMs: 20_000 + i * 1_000,
      }),
    ),
  );
  // The first alone, the other 7 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);
  for (let i = 0; i < 6; i++) {
    const outcome = outcomes[i]!;
    expect(outcome).toMatchObject({
      status: "fulfilled",
      value: {
        lockId: grants[i]!.lockId,
        fence: grants[i]!.fence,
        renewals: 1,
        ttlMs: 20_000 + i * 1_000,
      },
    });
    // Each key got its own lease, not a neighbour's.
    const stored = await store.inspect({ resource, businessKey: `k${i}` });
    expect(stored).toMatchObject({ lockId: grants[i]!.lockId, renewals: 1 });
    expect(stored!.ttlMs).toBeGreaterThan(19_000 + i * 1_000);
    expect(stored!.ttlMs).toBeLessThanOrEqual(20_000 + i * 1_000);
  }
  const other = outcomes[6]! as PromiseRejectedResult;
  expect(other.status).toBe("rejected");
  expect(other.reason).toBeInstanceOf(NotHolderError);
  expect((other.reason as NotHolderError).reason).toBe("other-holder");
  const gone = outcomes[7]! as PromiseRejectedResult;
  expect(gone.status).toBe("rejected");
  expect((gone.reason as NotHolderError).reason).toBe("expired");
  // k6 kept its lease as it was.
  expect(await store.inspect({ resource, businessKey: "k6" })).toMatchObject({
    lockId: grants[6]!.lockId,
    renewals: 0,
  });
});

test("a batch whose reply is lost fails every acquire in it as unknown; each grant is removed", async () => {
  const resource = uniqueResource();
  redis.pause();
  const outcomes = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      store
        .acquire({ resource, businessKey: `k${i}`, holder: holder("u"), leaseMs: 3_000 })
        .catch((e: unknown) => e),
    ),
  );
  const lockIds = outcomes.map((outcome) => {
    expect(outcome).toBeInstanceOf(OutcomeUnknownError);
    return (outcome as OutcomeUnknownError).lockId;
  });
  expect(new Set(lockIds).size).toBe(5);
  await sleep(300);
  // Redis now runs the queued batch: the grants land although every caller was told "unknown".
  redis.resume();
  await eventually(async () => {
    for (const lockId of lockIds) {
      if (!events.some((e) => e.type === "outcome-unknown" && e.lockId === lockId && e.cleanedUp)) {
        throw new Error(`cleanup of ${lockId} not done yet`);
      }
    }
  }, 5_000);
  for (let i = 0; i < 5; i++)
    expect(await store.inspect({ resource, businessKey: `k${i}` })).toBeNull();
});

test("a batch on a node whose epoch record is gone refuses its writes; each acquire rebinds and is granted", async () => {
  const resource = uniqueResource();
  const before = grantOf(
    await store.acquire({ resource, businessKey: "before", holder: holder("e"), leaseMs: 5_000 }),
  );
  // What a replica promoted without the record looks like to the script: no epoch bound here.
  await raw.del("w:ep");
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      store.acquire({ resource, businessKey: `k${i}`, holder: holder("e"), leaseMs: 5_000 }),
    ),
  );
  const span = BigInt(FENCE_LAYOUT.counterSpan);
  const epochBefore = fenceOf(before) / span;
  // Every grant is in an epoch bound after the record was lost, above the old one.
  for (const result of results) expect(fenceOf(grantOf(result)) / span > epochBefore).toBe(true);
  expect(events.some((e) => e.type === "epoch" && e.reason === "new master")).toBe(true);
});
