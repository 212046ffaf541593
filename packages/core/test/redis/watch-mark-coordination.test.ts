import { startRedis, type StandaloneRedis } from "@warden/testkit";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  RedisRwLockStore,
  RedisSemaphoreStore,
  type LockKey,
  type PermitGrant,
  type SemaphoreAcquireInput,
} from "../../src/index.js";
import { RedisKeys } from "../../src/redis/keys.js";
import { holder, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { mustGrant } from "../conformance/rw-lock-store-conformance.js";

// The watch mark of semaphores and read-write locks (decision 0206): a refused acquire marks
// the key (the mutex's mark, in the same slot), and a release that frees what a refused
// caller could take reports (and removes) it, so the server announces that release to the
// other instances and no other.

let redis: StandaloneRedis;
let semaphores: RedisSemaphoreStore;
let rw: RedisRwLockStore;
let raw: Redis;
// The stores' shard count (16): the mark's name depends on the key's shard.
const keys = new RedisKeys(16, false);

beforeAll(async () => {
  redis = await startRedis();
  const topology = { mode: "standalone" as const, url: redis.url };
  const epochSource = new MemoryEpochSource();
  semaphores = await RedisSemaphoreStore.open({ topology, epochSource });
  rw = await RedisRwLockStore.open({ topology, epochSource });
  raw = redis.client();
});

afterAll(async () => {
  raw?.disconnect();
  await semaphores?.close();
  await rw?.close();
  await redis?.stop();
});

/** The watch mark's remaining ms: -2 when there is none. */
const markTtl = (key: LockKey) => raw.pttl(keys.watch(key));

describe("the watch mark of a semaphore", () => {
  const acquire = (key: LockKey, owner: string, extra: Partial<SemaphoreAcquireInput> = {}) =>
    semaphores.acquire({
      ...key,
      holder: holder(owner, owner),
      leaseMs: 10_000,
      totalPermits: 1,
      ...extra,
    });
  const grant = async (key: LockKey, owner: string, extra: Partial<SemaphoreAcquireInput> = {}) => {
    const result = await acquire(key, owner, extra);
    if (!result.granted) throw new Error(`${owner} was not granted`);
    return result;
  };
  const release = (key: LockKey, permit: PermitGrant) =>
    semaphores.release({ ...key, lockId: permit.lockId });

  test("a release nobody was refused reports no watch, and leaves no mark", async () => {
    const key = { resource: uniqueResource(), businessKey: "quiet" };
    const first = await grant(key, "a", { totalPermits: 2 });
    const second = await grant(key, "b", { totalPermits: 2 });
    expect((await release(key, first)).watched).toBe(false);
    expect((await release(key, second)).watched).toBe(false);
    expect(await markTtl(key)).toBe(-2);
  });

  test("a refusal marks the key for its retryAfterMs and 5 s more; the next release reports and removes it", async () => {
    const key = { resource: uniqueResource(), businessKey: "contended" };
    const held = await grant(key, "a", { leaseMs: 8_000 });
    const refused = await acquire(key, "b");
    expect(refused.granted).toBe(false);
    if (refused.granted) return;
    expect(refused.retryAfterMs).toBeGreaterThan(7_000);
    const pttl = await markTtl(key);
    expect(pttl).toBeGreaterThan(12_000);
    expect(pttl).toBeLessThanOrEqual(13_000);
    expect((await release(key, held)).watched).toBe(true);
    expect(await markTtl(key)).toBe(-2);
    // The next hold, refused by nobody, is quiet again.
    const next = await grant(key, "b");
    expect((await release(key, next)).watched).toBe(false);
  });

  test("every release reports the mark while permits are still held: any release frees some", async () => {
    const key = { resource: uniqueResource(), businessKey: "partial" };
    const first = await grant(key, "a", { totalPermits: 2 });
    const second = await grant(key, "b", { totalPermits: 2 });
    expect((await acquire(key, "c", { totalPermits: 2, permits: 2 })).granted).toBe(false);
    expect((await release(key, first)).watched).toBe(true);
    expect(await markTtl(key)).toBe(-2);
    expect((await release(key, second)).watched).toBe(false);
  });

  test("a fair caller queued behind an earlier waiter marks the key", async () => {
    const key = { resource: uniqueResource(), businessKey: "fair" };
    const held = await grant(key, "h");
    const fair = (waiterId: string) =>
      acquire(key, waiterId, { leaseMs: 5_000, fair: { waiterId, heartbeatMs: 5_000 } });
    // w1 takes a place behind the holder (not enough permits); the release frees a permit
    // for w1 alone.
    expect((await fair("w1")).granted).toBe(false);
    expect((await release(key, held)).watched).toBe(true);
    expect(await markTtl(key)).toBe(-2);
    // w2 finds a permit free but w1 ahead of it: queued, and the key is marked for 5 s.
    const queued = await fair("w2");
    expect(queued).toMatchObject({ granted: false, queued: true });
    const pttl = await markTtl(key);
    expect(pttl).toBeGreaterThan(4_000);
    expect(pttl).toBeLessThanOrEqual(5_000);
    const head = await fair("w1");
    if (!head.granted) throw new Error("the head was not granted");
    expect((await release(key, head)).watched).toBe(true);
  });
});

describe("the watch mark of a read-write lock", () => {
  const read = (key: LockKey, owner: string, leaseMs = 10_000) =>
    rw.acquireRead({ ...key, holder: holder(owner, owner), leaseMs });
  const write = (key: LockKey, owner: string, leaseMs = 10_000) =>
    rw.acquireWrite({ ...key, holder: holder(owner, owner), leaseMs });
  const release = (key: LockKey, lockId: string) => rw.release({ ...key, lockId });

  test("a release nobody was refused reports no watch, and leaves no mark", async () => {
    const key = { resource: uniqueResource(), businessKey: "quiet" };
    const r1 = mustGrant(await read(key, "r1"));
    const r2 = mustGrant(await read(key, "r2"));
    expect(await release(key, r1.lockId)).toMatchObject({ released: true, watched: false });
    expect(await release(key, r2.lockId)).toMatchObject({ released: true, watched: false });
    const w = mustGrant(await write(key, "w"));
    expect(await release(key, w.lockId)).toMatchObject({ released: true, watched: false });
    expect(await markTtl(key)).toBe(-2);
  });

  test("a refused read marks the key for the writer's lease and 5 s more; the write's release reports and removes it", async () => {
    const key = { resource: uniqueResource(), businessKey: "write-held" };
    const w = mustGrant(await write(key, "w", 8_000));
    expect((await read(key, "r")).granted).toBe(false);
    const pttl = await markTtl(key);
    expect(pttl).toBeGreaterThan(12_000);
    expect(pttl).toBeLessThanOrEqual(13_000);
    expect(await release(key, w.lockId)).toMatchObject({ released: true, watched: true });
    expect(await markTtl(key)).toBe(-2);
    const r = mustGrant(await read(key, "r"));
    expect(await release(key, r.lockId)).toMatchObject({ released: true, watched: false });
  });

  test("a refused write marks the key; each freed read reports it once, re-entries keep it", async () => {
    const key = { resource: uniqueResource(), businessKey: "read-held" };
    const r1 = mustGrant(await read(key, "r1", 6_000));
    mustGrant(await read(key, "r1", 6_000));
    const r2 = mustGrant(await read(key, "r2", 6_000));
    expect((await write(key, "w")).granted).toBe(false);
    const pttl = await markTtl(key);
    expect(pttl).toBeGreaterThan(10_000);
    expect(pttl).toBeLessThanOrEqual(11_000);
    // r1 leaves one of its two entries: nothing freed, the mark stays.
    expect(await release(key, r1.lockId)).toMatchObject({ released: false, watched: false });
    expect(await markTtl(key)).toBeGreaterThan(0);
    // r1's grant goes: announced as today, and the mark goes with it.
    expect(await release(key, r1.lockId)).toMatchObject({ released: true, watched: true });
    expect(await markTtl(key)).toBe(-2);
    // The waiting writer tries again, is refused by r2, and marks again for r2's release.
    expect((await write(key, "w")).granted).toBe(false);
    expect(await release(key, r2.lockId)).toMatchObject({ released: true, watched: true });
    const w = mustGrant(await write(key, "w"));
    expect(await release(key, w.lockId)).toMatchObject({ released: true, watched: false });
  });

  test("a read refused for a waiting writer (writer preference) marks the key", async () => {
    const key = { resource: uniqueResource(), businessKey: "writer-waiting" };
    const r1 = mustGrant(await read(key, "r1"));
    expect((await write(key, "w")).granted).toBe(false);
    expect(await release(key, r1.lockId)).toMatchObject({ watched: true });
    // The writer's intent holds new readers back: r2 is refused, and the key is marked.
    const refused = await read(key, "r2");
    expect(refused).toMatchObject({ granted: false, reason: "writer-waiting" });
    expect(await markTtl(key)).toBeGreaterThan(4_000);
    const w = mustGrant(await write(key, "w"));
    expect(await release(key, w.lockId)).toMatchObject({ released: true, watched: true });
  });
});
