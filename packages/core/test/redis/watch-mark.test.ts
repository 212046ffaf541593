import { startRedis, type StandaloneRedis } from "@warden/testkit";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LockKey, RedisLockStore, StoreEvent } from "../../src/index.js";
import { acquirePlain } from "../../src/redis/generated/lua-scripts.js";
import { RedisKeys } from "../../src/redis/keys.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// The watch mark (decision 0206): a refused acquire marks the key, and the release that
// frees it reports (and removes) the mark, so the server announces that release to the
// other instances and no other.

let redis: StandaloneRedis;
let store: RedisLockStore;
let events: StoreEvent[];
let raw: Redis;
// The store's shard count (16): the mark's name depends on the key's shard.
const keys = new RedisKeys(16, false);

beforeAll(async () => {
  redis = await startRedis();
  ({ store, events } = await openRedisStore({ mode: "standalone", url: redis.url }));
  raw = redis.client();
});

afterAll(async () => {
  raw?.disconnect();
  await store?.close();
  await redis?.stop();
});

/** The `watched` of the last release event of `key`. */
function lastReleaseWatched(key: LockKey): boolean | undefined {
  const found = events.findLast(
    (e) => e.type === "release" && e.resource === key.resource && e.businessKey === key.businessKey,
  );
  if (found?.type !== "release") throw new Error("no release event");
  return found.watched;
}

async function grant(key: LockKey, owner: string, leaseMs = 10_000) {
  const result = await store.acquire({ ...key, holder: holder(owner, owner), leaseMs });
  if (!result.granted) throw new Error(`${owner} was not granted`);
  return result;
}

describe("the watch mark", () => {
  test("a release nobody was refused reports no watch, and leaves no mark", async () => {
    const key = { resource: uniqueResource(), businessKey: "quiet" };
    const held = await grant(key, "a");
    await store.release({ ...key, lockId: held.lockId });
    expect(lastReleaseWatched(key)).toBe(false);
    expect(await raw.exists(keys.watch(key))).toBe(0);
  });

  test("a refusal marks the key for the holder's lease and 5 s more; the freeing release reports and removes it", async () => {
    const key = { resource: uniqueResource(), businessKey: "contended" };
    const held = await grant(key, "a", 8_000);
    const refused = await store.acquire({ ...key, holder: holder("b", "b"), leaseMs: 1_000 });
    expect(refused.granted).toBe(false);
    const pttl = await raw.pttl(keys.watch(key));
    expect(pttl).toBeGreaterThan(12_000);
    expect(pttl).toBeLessThanOrEqual(13_000);
    await store.release({ ...key, lockId: held.lockId });
    expect(lastReleaseWatched(key)).toBe(true);
    expect(await raw.exists(keys.watch(key))).toBe(0);
    // The next hold, refused by nobody, is quiet again.
    const next = await grant(key, "b");
    await store.release({ ...key, lockId: next.lockId });
    expect(lastReleaseWatched(key)).toBe(false);
  });

  test("a release that leaves re-entries keeps the mark for the one that frees the key", async () => {
    const key = { resource: uniqueResource(), businessKey: "reentered" };
    const first = await grant(key, "a");
    await grant(key, "a");
    expect(
      (await store.acquire({ ...key, holder: holder("b", "b"), leaseMs: 1_000 })).granted,
    ).toBe(false);
    await store.release({ ...key, lockId: first.lockId });
    expect(lastReleaseWatched(key)).toBe(false);
    expect(await raw.exists(keys.watch(key))).toBe(1);
    await store.release({ ...key, lockId: first.lockId });
    expect(lastReleaseWatched(key)).toBe(true);
  });

  test("a fair caller refused for an earlier waiter marks the key", async () => {
    const key = { resource: uniqueResource(), businessKey: "fair" };
    const held = await grant(key, "h");
    const fair = (waiterId: string) => ({
      ...key,
      holder: holder(waiterId, waiterId),
      leaseMs: 5_000,
      fair: { waiterId, heartbeatMs: 5_000 },
    });
    // w1 takes a place behind the holder; the release frees the key for w1 alone.
    expect((await store.acquire(fair("w1"))).granted).toBe(false);
    await store.release({ ...key, lockId: held.lockId });
    expect(lastReleaseWatched(key)).toBe(true);
    expect(await raw.exists(keys.watch(key))).toBe(0);
    // w2 finds the key free but w1 ahead of it: refused, and the key is marked.
    expect((await store.acquire(fair("w2"))).granted).toBe(false);
    expect(await raw.exists(keys.watch(key))).toBe(1);
    const head = await store.acquire(fair("w1"));
    if (!head.granted) throw new Error("the head was not granted");
    await store.release({ ...key, lockId: head.lockId });
    expect(lastReleaseWatched(key)).toBe(true);
  });

  test("a lock-delay refusal marks the key", async () => {
    const key = { resource: uniqueResource(), businessKey: "delayed" };
    await store.acquire({ ...key, holder: holder("a", "a"), leaseMs: 300, lockDelayMs: 5_000 });
    await sleep(400);
    const refused = await store.acquire({
      ...key,
      holder: holder("b", "b"),
      leaseMs: 1_000,
      lockDelayMs: 5_000,
    });
    expect(refused.granted).toBe(false);
    expect(await raw.exists(keys.watch(key))).toBe(1);
  });

  test("a mark lapses on its own when the holder's lease expires unreleased", async () => {
    const key = { resource: uniqueResource(), businessKey: "lapsing" };
    await grant(key, "a");
    // A held key refused with ~100 ms left: the mark lives ~5.1 s.
    await raw.set(keys.lease(key), (await raw.get(keys.lease(key)))!, "PX", 100);
    expect(
      (await store.acquire({ ...key, holder: holder("b", "b"), leaseMs: 1_000 })).granted,
    ).toBe(false);
    const pttl = await raw.pttl(keys.watch(key));
    expect(pttl).toBeGreaterThan(4_000);
    expect(pttl).toBeLessThanOrEqual(5_100);
  });
});

test("a replica that cannot write still answers a refusal (the mark is best effort)", async () => {
  const replica = await startRedis();
  const client = replica.client();
  try {
    const key = { resource: uniqueResource(), businessKey: "on-replica" };
    await grant(key, "a");
    const [host, port] = new URL(redis.url).host.split(":");
    await client.replicaof(host!, Number(port));
    await eventually(async () => expect(await client.exists(keys.lease(key))).toBe(1), 10_000);
    const lease = keys.lease(key);
    const reply = await client.eval(
      acquirePlain.lua,
      acquirePlain.numberOfKeys,
      lease,
      `${lease}:f`,
      "w:ep",
      lease,
      keys.watch(key),
      "AAAAAAAAAAAAAAAAAAAAAA",
      "b",
      "b",
      "1000",
      "0",
      "60000",
      String(2 ** 33),
      "0",
    );
    expect(reply).toEqual([0, "a", "a", expect.any(Number)]);
    expect(await client.exists(keys.watch(key))).toBe(0);
  } finally {
    client.disconnect();
    await replica.stop();
  }
});
