import { scriptCalls, startRedis, type StandaloneRedis } from "@warden/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  FENCE_LAYOUT,
  InvalidArgumentError,
  NotHolderError,
  RedisRwLockStore,
  type RedisLockStore,
} from "../../src/index.js";
import { RedisSemaphoreStore } from "../../src/redis/semaphore/redis-semaphore-store.js";
import type { RwAcquireResult } from "../../src/store/rw-lock-store.js";
import type { PermitResult } from "../../src/store/semaphore-store.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// Decision 0213 for the semaphore and the read-write lock: on standalone and sentinel the
// first plain acquire (or release, or extend) of a turn goes to Redis at once and the rest
// of the turn's go together in one script call, and each caller still gets the answer it
// would get alone: grants, refusals, errors and fences.

let redis: StandaloneRedis;
let raw: Redis;
let mutex: RedisLockStore;
let semaphores: RedisSemaphoreStore;
let rw: RedisRwLockStore;

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
  const topology = { mode: "standalone" as const, url: redis.url };
  const opened = await openRedisStore(topology);
  mutex = opened.store;
  semaphores = await RedisSemaphoreStore.open({ topology, epochSource: opened.epochSource });
  rw = await RedisRwLockStore.open({ topology, epochSource: opened.epochSource });
});

afterAll(async () => {
  raw?.disconnect();
  await rw?.close();
  await semaphores?.close();
  await mutex?.close();
  await redis?.stop();
});

function epochOf(fence: string | null): bigint {
  if (fence === null) throw new Error("a Redis grant has a fence");
  return BigInt(fence) / BigInt(FENCE_LAYOUT.counterSpan);
}

function permitOf(result: PermitResult): Extract<PermitResult, { granted: true }> {
  if (!result.granted) throw new Error(`not granted: ${JSON.stringify(result)}`);
  return result;
}

function rwGrantOf(result: RwAcquireResult): Extract<RwAcquireResult, { granted: true }> {
  if (!result.granted) throw new Error(`not granted: ${JSON.stringify(result)}`);
  return result;
}

test("semaphore: plain acquires of one turn are two script calls, each answered as if alone", async () => {
  const resource = uniqueResource();
  const key = (businessKey: string) => ({ resource, businessKey });
  const a = holder("a");
  const b = holder("b");
  const full = permitOf(
    await semaphores.acquire({
      ...key("full"),
      holder: a,
      leaseMs: 5_000,
      permits: 2,
      totalPermits: 2,
    }),
  );
  // A batch first, so the batch script is loaded and each call below is one EVALSHA.
  await Promise.all(
    [1, 2, 3].map((i) =>
      semaphores.acquire({ ...key(`w${i}`), holder: a, leaseMs: 5_000, totalPermits: 1 }),
    ),
  );

  const before = await scriptCalls(raw);
  const [fresh, refused, first, second, third, ...many] = await Promise.all([
    semaphores.acquire({ ...key("fresh"), holder: b, leaseMs: 5_000, permits: 2, totalPermits: 3 }),
    semaphores.acquire({ ...key("full"), holder: b, leaseMs: 5_000, totalPermits: 2 }),
    // One key three times in one call, two permits: the first two are granted, each counting
    // the grants before it; the third is refused.
    semaphores.acquire({ ...key("shared"), holder: a, leaseMs: 5_000, totalPermits: 2 }),
    semaphores.acquire({ ...key("shared"), holder: b, leaseMs: 5_000, totalPermits: 2 }),
    semaphores.acquire({ ...key("shared"), holder: b, leaseMs: 5_000, totalPermits: 2 }),
    ...Array.from({ length: 20 }, (_, i) =>
      semaphores.acquire({ ...key(`many-${i}`), holder: b, leaseMs: 5_000, totalPermits: 1 }),
    ),
  ]);
  // The first alone, the other 24 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);

  const freshGrant = permitOf(fresh);
  expect(freshGrant).toMatchObject({ permits: 2, inUse: 2, totalPermits: 3, ttlMs: 5_000 });
  expect(refused).toMatchObject({ granted: false, inUse: 2, queued: false, tier: "redis" });
  expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(4_000);
  expect(permitOf(first)).toMatchObject({ inUse: 1 });
  expect(permitOf(second)).toMatchObject({ inUse: 2 });
  expect(third).toMatchObject({ granted: false, inUse: 2 });
  const grants = [freshGrant, permitOf(first), permitOf(second), ...many.map(permitOf)];
  // One epoch check for the whole call found the epoch bound before it. Fences are unique
  // per shard counter, not per resource (keys.ts), so only their epoch is compared.
  for (const grant of grants) expect(epochOf(grant.fence)).toBe(epochOf(full.fence));
  // The stored grants are the ones the replies describe.
  const view = await semaphores.inspect(key("shared"));
  expect(view.inUse).toBe(2);
  expect(view.holders.map((h) => h.lockId).sort()).toEqual(
    [permitOf(first).lockId, permitOf(second).lockId].sort(),
  );
});

test("semaphore: fair acquires of one turn are two script calls, queued in the order made", async () => {
  const resource = uniqueResource();
  const key = (businessKey: string) => ({ resource, businessKey });
  const fair = (waiterId: string | null) => ({ waiterId, heartbeatMs: 5_000 });
  const h = holder("h");
  const held = permitOf(
    await semaphores.acquire({ ...key("k"), holder: h, leaseMs: 5_000, totalPermits: 1 }),
  );
  // A batch first, so the batch script is loaded and each call below is one EVALSHA.
  await Promise.all(
    [1, 2, 3].map((i) =>
      semaphores.acquire({
        ...key(`warm-${i}`),
        holder: h,
        leaseMs: 5_000,
        totalPermits: 1,
        fair: fair(`x${i}`),
      }),
    ),
  );

  const sharedTry = (w: string) =>
    semaphores.acquire({
      ...key("shared"),
      holder: holder(w),
      leaseMs: 5_000,
      totalPermits: 2,
      fair: fair(w),
    });
  const before = await scriptCalls(raw);
  const waiters = ["w1", "w2", "w3", "w4", "w5"];
  const [fresh, shared1, shared2, shared3, respecting, ...queued] = await Promise.all([
    semaphores.acquire({
      ...key("free"),
      holder: holder("f"),
      leaseMs: 5_000,
      permits: 2,
      totalPermits: 3,
      fair: fair("f"),
    }),
    // One free key three times in one call, two permits: the first two are granted, each
    // counting the grants before it; the third queues.
    sharedTry("s1"),
    sharedTry("s2"),
    sharedTry("s3"),
    // A try that respects the queue (no place of its own) on a key nobody queues for.
    semaphores.acquire({
      ...key("respect"),
      holder: holder("r"),
      leaseMs: 5_000,
      totalPermits: 1,
      fair: fair(null),
    }),
    ...waiters.map((w) =>
      semaphores.acquire({
        ...key("k"),
        holder: holder(w),
        leaseMs: 5_000,
        totalPermits: 1,
        fair: fair(w),
      }),
    ),
  ]);
  // The first alone, the other ten in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);

  expect(permitOf(fresh)).toMatchObject({ permits: 2, inUse: 2, totalPermits: 3, ttlMs: 5_000 });
  expect(permitOf(shared1)).toMatchObject({ inUse: 1 });
  expect(permitOf(shared2)).toMatchObject({ inUse: 2 });
  expect(shared3).toMatchObject({ granted: false, inUse: 2 });
  expect(permitOf(respecting)).toMatchObject({ inUse: 1 });
  for (const refusal of queued) expect(refusal).toMatchObject({ granted: false, inUse: 1 });
  const grants = [fresh, shared1, shared2, respecting].map(permitOf);
  // One epoch check for the whole call found the epoch bound before it.
  for (const grant of grants) expect(epochOf(grant.fence)).toBe(epochOf(held.fence));
  // Fences are unique per shard counter: one key's two grants in one call, in call order.
  expect(BigInt(permitOf(shared2).fence!)).toBeGreaterThan(BigInt(permitOf(shared1).fence!));
  const [queueKey] = await raw.keys(`w:{${resource}#*}:sq:k`);
  expect(await raw.zrange(queueKey!, 0, -1)).toEqual(waiters);
  // The granted waiters left the queue of their key; the refused one kept its place.
  const [sharedQueue] = await raw.keys(`w:{${resource}#*}:sq:shared`);
  expect(await raw.zrange(sharedQueue!, 0, -1)).toEqual(["s3"]);

  // Once the permit is free, only the head of the queue may take it, in one batch or not.
  await semaphores.release({ ...key("k"), lockId: held.lockId });
  const [second, first] = await Promise.all([
    semaphores.acquire({
      ...key("k"),
      holder: holder("w2"),
      leaseMs: 5_000,
      totalPermits: 1,
      fair: fair("w2"),
    }),
    semaphores.acquire({
      ...key("k"),
      holder: holder("w1"),
      leaseMs: 5_000,
      totalPermits: 1,
      fair: fair("w1"),
    }),
  ]);
  expect(second).toMatchObject({ granted: false, queued: true });
  expect(permitOf(first)).toMatchObject({ inUse: 1 });
  expect(await raw.zrange(queueKey!, 0, -1)).toEqual(["w2", "w3", "w4", "w5"]);
  const view = await semaphores.inspect(key("shared"));
  expect(view.holders.map((x) => x.lockId).sort()).toEqual(
    [permitOf(shared1).lockId, permitOf(shared2).lockId].sort(),
  );
});

test("semaphore: releases of one turn are two script calls; an unknown lockId fails only its own", async () => {
  const resource = uniqueResource();
  const h = holder("r");
  const grants = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      semaphores
        .acquire({ resource, businessKey: `k${i % 3}`, holder: h, leaseMs: 5_000, totalPermits: 2 })
        .then(permitOf),
    ),
  );
  const before = await scriptCalls(raw);
  const outcomes = await Promise.allSettled(
    grants.map((g, i) =>
      semaphores.release({
        resource,
        businessKey: `k${i % 3}`,
        // The last one names a grant of another key.
        lockId: i === 5 ? grants[0]!.lockId : g.lockId,
      }),
    ),
  );
  // The first alone, the other 5 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);
  for (const [i, outcome] of outcomes.slice(0, 5).entries()) {
    expect(outcome).toMatchObject({ status: "fulfilled", value: { lockId: grants[i]!.lockId } });
  }
  expect((outcomes[5] as PromiseRejectedResult).reason).toBeInstanceOf(NotHolderError);
  expect((await semaphores.inspect({ resource, businessKey: "k0" })).inUse).toBe(0);
  expect((await semaphores.inspect({ resource, businessKey: "k1" })).inUse).toBe(0);
  const k2 = await semaphores.inspect({ resource, businessKey: "k2" });
  expect(k2.holders.map((g) => g.lockId)).toEqual([grants[5]!.lockId]);
});

test("read-write: acquires of one turn are two script calls, each answered as if alone", async () => {
  const resource = uniqueResource();
  const key = (businessKey: string) => ({ resource, businessKey });
  const a = holder("a");
  const b = holder("b");
  const c = holder("c");
  const writer = rwGrantOf(await rw.acquireWrite({ ...key("written"), holder: a, leaseMs: 5_000 }));
  await mutex.acquire({ ...key("mutex"), holder: a, leaseMs: 5_000 });
  await Promise.all(
    [1, 2, 3].map((i) => rw.acquireRead({ ...key(`w${i}`), holder: a, leaseMs: 5_000 })),
  );

  const before = await scriptCalls(raw);
  const [refused, reader1, reader2, write1, write2, mixed, asMutex, ...many] =
    await Promise.allSettled([
      rw.acquireRead({ ...key("written"), holder: b, leaseMs: 5_000 }),
      // Two readers of one key in one call join one read generation: one fence.
      rw.acquireRead({ ...key("read"), holder: b, leaseMs: 5_000 }),
      rw.acquireRead({ ...key("read"), holder: c, leaseMs: 5_000 }),
      // Two writers of one key: the first is granted, the second sees it.
      rw.acquireWrite({ ...key("write"), holder: b, leaseMs: 5_000 }),
      rw.acquireWrite({ ...key("write"), holder: c, leaseMs: 5_000 }),
      // The holder of the write asks to read it: refused as an error, alone.
      rw.acquireRead({ ...key("written"), holder: a, leaseMs: 5_000 }),
      // A key held as a mutex: an error, alone.
      rw.acquireRead({ ...key("mutex"), holder: b, leaseMs: 5_000 }),
      ...Array.from({ length: 20 }, (_, i) =>
        rw.acquireWrite({ ...key(`many-${i}`), holder: c, leaseMs: 5_000 }),
      ),
    ]);
  // The first alone, the other 26 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);

  const value = <T>(outcome: PromiseSettledResult<T>): T => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  };
  expect(value(refused)).toMatchObject({ granted: false, reason: "write-held", holders: [a] });
  const r1 = rwGrantOf(value(reader1));
  const r2 = rwGrantOf(value(reader2));
  expect(r1.fence).toBe(r2.fence);
  expect(r1.lockId).not.toBe(r2.lockId);
  const w1 = rwGrantOf(value(write1));
  expect(w1).toMatchObject({ mode: "write", reentry: 1, ttlMs: 5_000 });
  expect(value(write2)).toMatchObject({ granted: false, reason: "write-held", holders: [b] });
  for (const outcome of [mixed, asMutex]) {
    expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(InvalidArgumentError);
  }
  const grants = [r1, w1, ...many.map((m) => rwGrantOf(value(m)))];
  for (const grant of grants) expect(epochOf(grant.fence)).toBe(epochOf(writer.fence));
  // The stored state is the one the replies describe.
  expect((await rw.inspect(key("read")))?.readers.map((g) => g.lockId).sort()).toEqual(
    [r1.lockId, r2.lockId].sort(),
  );
  expect((await rw.inspect(key("write")))?.writer?.lockId).toBe(w1.lockId);
});

test("read-write: releases of one turn are two script calls; an unknown lockId fails only its own", async () => {
  const resource = uniqueResource();
  const grants = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      rw
        .acquireRead({
          resource,
          businessKey: `k${i % 3}`,
          holder: holder(`r${i}`),
          leaseMs: 5_000,
        })
        .then(rwGrantOf),
    ),
  );
  const before = await scriptCalls(raw);
  const outcomes = await Promise.allSettled(
    grants.map((g, i) =>
      rw.release({
        resource,
        businessKey: `k${i % 3}`,
        lockId: i === 5 ? grants[0]!.lockId : g.lockId,
      }),
    ),
  );
  expect(await scriptCalls(raw)).toBe(before + 2);
  for (const outcome of outcomes.slice(0, 5)) {
    expect(outcome).toMatchObject({ status: "fulfilled", value: { released: true, mode: "read" } });
  }
  expect((outcomes[5] as PromiseRejectedResult).reason).toBeInstanceOf(NotHolderError);
  expect((await rw.inspect({ resource, businessKey: "k0" }))?.readers ?? []).toEqual([]);
  expect((await rw.inspect({ resource, businessKey: "k2" }))?.readers.map((g) => g.lockId)).toEqual(
    [grants[5]!.lockId],
  );
});

test("semaphore: extends of one turn are two script calls; a gone grant fails only its own", async () => {
  const resource = uniqueResource();
  const grants = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      semaphores
        .acquire({
          resource,
          businessKey: `k${i}`,
          holder: holder(`e${i}`),
          leaseMs: 2_000,
          totalPermits: 1,
        })
        .then(permitOf),
    ),
  );
  await semaphores.release({ resource, businessKey: "k5", lockId: grants[5]!.lockId });
  const before = await scriptCalls(raw);
  const outcomes = await Promise.allSettled(
    grants.map((g, i) =>
      semaphores.extend({
        resource,
        businessKey: `k${i}`,
        // k4 names a grant of another key.
        lockId: i === 4 ? grants[0]!.lockId : g.lockId,
        leaseMs: 20_000 + i * 1_000,
      }),
    ),
  );
  // The first alone, the other 5 in one call.
  expect(await scriptCalls(raw)).toBe(before + 2);
  for (let i = 0; i < 4; i++) {
    expect(outcomes[i]).toMatchObject({
      status: "fulfilled",
      value: { lockId: grants[i]!.lockId, fence: grants[i]!.fence, renewals: 1 },
    });
    // Each grant got its own new lease, not a neighbour's.
    const [stored] = (await semaphores.inspect({ resource, businessKey: `k${i}` })).holders;
    expect(stored).toMatchObject({ lockId: grants[i]!.lockId, renewals: 1 });
    expect(stored!.ttlMs).toBeGreaterThan(19_000 + i * 1_000);
    expect(stored!.ttlMs).toBeLessThanOrEqual(20_000 + i * 1_000);
  }
  for (const i of [4, 5]) {
    expect((outcomes[i] as PromiseRejectedResult).reason).toBeInstanceOf(NotHolderError);
  }
  const [k4] = (await semaphores.inspect({ resource, businessKey: "k4" })).holders;
  expect(k4).toMatchObject({ lockId: grants[4]!.lockId, renewals: 0 });
});

test("read-write: extends of one turn are two script calls; a wrong lockId fails only its own", async () => {
  const resource = uniqueResource();
  const grants = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      (i % 2 === 0 ? rw.acquireRead.bind(rw) : rw.acquireWrite.bind(rw))({
        resource,
        businessKey: `k${i}`,
        holder: holder(`x${i}`),
        leaseMs: 2_000,
      }).then(rwGrantOf),
    ),
  );
  const before = await scriptCalls(raw);
  const outcomes = await Promise.allSettled(
    grants.map((g, i) =>
      rw.extend({
        resource,
        businessKey: `k${i}`,
        // k5 names a grant of another key.
        lockId: i === 5 ? grants[0]!.lockId : g.lockId,
        leaseMs: 20_000 + i * 1_000,
      }),
    ),
  );
  expect(await scriptCalls(raw)).toBe(before + 2);
  for (let i = 0; i < 5; i++) {
    expect(outcomes[i]).toMatchObject({
      status: "fulfilled",
      value: { lockId: grants[i]!.lockId, mode: i % 2 === 0 ? "read" : "write", renewals: 1 },
    });
    const seen = await rw.inspect({ resource, businessKey: `k${i}` });
    const stored = i % 2 === 0 ? seen!.readers[0] : seen!.writer;
    expect(stored).toMatchObject({ lockId: grants[i]!.lockId, renewals: 1 });
    expect(stored!.ttlMs).toBeGreaterThan(19_000 + i * 1_000);
    expect(stored!.ttlMs).toBeLessThanOrEqual(20_000 + i * 1_000);
  }
  expect((outcomes[5] as PromiseRejectedResult).reason).toBeInstanceOf(NotHolderError);
  expect((await rw.inspect({ resource, businessKey: "k5" }))!.writer).toMatchObject({
    lockId: grants[5]!.lockId,
    renewals: 0,
  });
});
