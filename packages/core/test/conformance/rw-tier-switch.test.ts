import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  InvalidArgumentError,
  LocalRwLockStore,
  LockUnavailableError,
  MysqlEpochSource,
  MysqlRwLockStore,
  RedisRwLockStore,
  TieredRwLocks,
  compareFences,
  type TieredLocks,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { DEGRADES, openLocks, startBackends, waitForTier } from "../tier/tier-harness.js";
import { mustGrant } from "./rw-lock-store-conformance.js";

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let pool: Pool;
let locks: TieredLocks;
let rw: TieredRwLocks;
let mysqlRw: MysqlRwLockStore;
const key = { resource: uniqueResource("rw-switch"), businessKey: "k" };

/**
 * What a fenced resource does (decision 0090): it keeps the highest fence it accepted; a
 * write is accepted with a fence at least that, and a reader's result is valid only while no
 * write with a higher fence than its read fence was accepted.
 */
class FencedResource {
  stored = "0";
  write(fence: string): boolean {
    if (compareFences(fence, this.stored) < 0) return false;
    this.stored = fence;
    return true;
  }
  readStillValid(readFence: string): boolean {
    return compareFences(this.stored, readFence) <= 0;
  }
}

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  locks = await openLocks(redis.url, mariadb.url, "rw-instance");
  await waitForTier(locks, "redis");
  pool = createPool({ uri: mariadb.url, connectionLimit: 2 });
  const epochSource = new MysqlEpochSource(pool);
  mysqlRw = await MysqlRwLockStore.open({ connection: mariadb.url, epochSource });
  rw = new TieredRwLocks({
    tiers: locks,
    redis: await RedisRwLockStore.open({
      topology: { mode: "standalone", url: redis.url },
      epochSource,
    }),
    mysql: mysqlRw,
    local: new LocalRwLockStore(),
  });
});

afterAll(async () => {
  await rw?.close();
  await locks?.close();
  await pool?.end();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

const resource = new FencedResource();
let redisReader: { lockId: string; fence: string };
let mysqlWriter: { lockId: string; fence: string };

test("after a switch to MySQL a writer there is fenced above every Redis grant; releases go where they were granted", async () => {
  const reader = mustGrant(
    await rw.acquireRead({ ...key, holder: holder("r1"), leaseMs: 30_000 }, DEGRADES),
  );
  expect(reader.tier).toBe("redis");
  redisReader = { lockId: reader.lockId, fence: reader.fence! };
  const redisWriterKey = { ...key, businessKey: "k2" };
  const w0 = mustGrant(
    await rw.acquireWrite({ ...redisWriterKey, holder: holder("w0"), leaseMs: 30_000 }, DEGRADES),
  );
  expect(resource.write(w0.fence!)).toBe(true);

  await locks.override("mysql", "test", "read-write lock across a switch");
  await waitForTier(locks, "mysql");
  await expect(
    rw.acquireRead(
      { ...key, holder: holder("x"), leaseMs: 1_000 },
      { ...DEGRADES, degrade: false },
    ),
  ).rejects.toBeInstanceOf(LockUnavailableError);

  // MySQL does not see Redis's read-write grants: the writer is granted while the Redis reader
  // lives, and fencing is what keeps them apart.
  const writer = mustGrant(
    await rw.acquireWrite({ ...key, holder: holder("w1"), leaseMs: 30_000 }, DEGRADES),
  );
  expect(writer.tier).toBe("mysql");
  mysqlWriter = { lockId: writer.lockId, fence: writer.fence! };
  expect(compareFences(writer.fence!, reader.fence!)).toBeGreaterThan(0);
  expect(compareFences(writer.fence!, w0.fence!)).toBeGreaterThan(0);
  expect(resource.write(writer.fence!)).toBe(true);
  // The Redis reader learns its read is stale, and the Redis writer's writes are refused.
  expect(resource.readStillValid(reader.fence!)).toBe(false);
  expect(resource.write(w0.fence!)).toBe(false);

  // Release and extend go to the tier that granted.
  await rw.release({ ...key, lockId: reader.lockId, tier: "redis" });
  await rw.release({ ...redisWriterKey, lockId: w0.lockId, tier: "redis" });
  const extended = await rw.extend({
    ...key,
    lockId: writer.lockId,
    leaseMs: 30_000,
    tier: "mysql",
  });
  expect(extended.renewals).toBe(1);
  const seen = await rw.inspect(key);
  expect(seen?.tier).toBe("mysql");
  expect(seen?.writer?.lockId).toBe(writer.lockId);
});

test("a return to Redis drains: a live MySQL writer refuses Redis grants until released, then Redis fences exceed it", async () => {
  expect(redisReader).toBeDefined();
  await locks.override("redis", "test", "back to Redis");
  await waitForTier(locks, "redis");
  expect(rw.draining).toBe(true);
  for (const result of [
    await rw.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 }, DEGRADES),
    await rw.acquireWrite({ ...key, holder: holder("w2"), leaseMs: 5_000 }, DEGRADES),
  ]) {
    expect(result.granted).toBe(false);
    if (!result.granted) {
      expect(result.reason).toBe("write-held");
      expect(result.tier).toBe("mysql");
    }
  }
  // Bad input is refused as such during the drain, before MySQL is asked about the key.
  await expect(
    rw.acquireWrite({ ...key, holder: holder("w2"), leaseMs: 0 }, DEGRADES),
  ).rejects.toBeInstanceOf(InvalidArgumentError);
  await rw.release({ ...key, lockId: mysqlWriter.lockId, tier: "mysql" });
  await eventually(async () => expect(rw.draining).toBe(false), 5_000);
  const reader = mustGrant(
    await rw.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 }, DEGRADES),
  );
  expect(reader.tier).toBe("redis");
  expect(compareFences(reader.fence!, mysqlWriter.fence)).toBeGreaterThan(0);
  expect(resource.readStillValid(reader.fence!)).toBe(true);
  await rw.release({ ...key, lockId: reader.lockId, tier: "redis" });
  const writer = mustGrant(
    await rw.acquireWrite({ ...key, holder: holder("w3"), leaseMs: 5_000 }, DEGRADES),
  );
  expect(compareFences(writer.fence!, reader.fence!)).toBeGreaterThan(0);
  expect(resource.write(writer.fence!)).toBe(true);
  await locks.override(null, "test", "done");
});

test("withdrawIntent reaches every tier: an intent a wait left on the tier the fleet moved from goes too", async () => {
  const w = holder("w-intent");
  // A writer waits on MySQL (a reader holds the key there), then the fleet returns to Redis.
  await locks.override("mysql", "test", "an intent on MySQL");
  await waitForTier(locks, "mysql");
  const there = { ...key, businessKey: "intent-mysql" };
  const mysqlReader = mustGrant(
    await rw.acquireRead({ ...there, holder: holder("r"), leaseMs: 20_000 }, DEGRADES),
  );
  expect(mysqlReader.tier).toBe("mysql");
  const refusedThere = await rw.acquireWrite(
    { ...there, holder: w, leaseMs: 5_000, intentMs: 20_000 },
    DEGRADES,
  );
  expect(refusedThere.granted ? null : refusedThere.tier).toBe("mysql");
  await locks.override("redis", "test", "back to Redis");
  await waitForTier(locks, "redis");

  await expect(
    rw.withdrawIntent({ ...there, holder: { ...w, ownerId: "" } }),
  ).rejects.toBeInstanceOf(InvalidArgumentError);
  expect((await mysqlRw.inspect(there))?.waitingWriters).toBe(1);
  expect(await rw.withdrawIntent({ ...there, holder: w })).toBe(true);
  const seen = await mysqlRw.inspect(there);
  expect(seen?.waitingWriters).toBe(0);
  expect(seen?.readers.map((g) => g.lockId)).toEqual([mysqlReader.lockId]);
  expect(await rw.withdrawIntent({ ...there, holder: w })).toBe(false);
  await rw.release({ ...there, lockId: mysqlReader.lockId, tier: "mysql" });
  await eventually(async () => expect(rw.draining).toBe(false), 5_000);

  // And on the tier in force.
  const here = { ...key, businessKey: "intent-redis" };
  mustGrant(await rw.acquireRead({ ...here, holder: holder("r"), leaseMs: 20_000 }, DEGRADES));
  const refused = await rw.acquireWrite(
    { ...here, holder: w, leaseMs: 5_000, intentMs: 20_000 },
    DEGRADES,
  );
  expect(refused.granted ? null : refused.tier).toBe("redis");
  expect((await rw.inspect(here))?.waitingWriters).toBe(1);
  expect(await rw.withdrawIntent({ ...here, holder: w })).toBe(true);
  const reader = mustGrant(
    await rw.acquireRead({ ...here, holder: holder("r2"), leaseMs: 5_000 }, DEGRADES),
  );
  expect(reader.tier).toBe("redis");
  expect((await rw.inspect(here))?.readers).toHaveLength(2);
  await locks.override(null, "test", "done");
});

// Paging a resource's holders across every tier (decision 0185): the walk's order is fixed by
// its first page and carried in the cursor, so a tier switch between two pages neither skips
// a tier nor walks one twice.
const listed = uniqueResource("rw-list-switch");

async function grantOn(tier: "redis" | "mysql", keys: readonly string[]): Promise<void> {
  await locks.override(tier, "test", `grant in ${tier}`);
  await waitForTier(locks, tier);
  for (const businessKey of keys) {
    const grant = mustGrant(
      await rw.acquireWrite(
        { resource: listed, businessKey, holder: holder(businessKey), leaseMs: 60_000 },
        DEGRADES,
      ),
    );
    expect(grant.tier).toBe(tier);
  }
}

test("a tier switch between two pages of holder keys skips no tier and repeats none", async () => {
  await grantOn("mysql", ["m1", "m2"]);
  await grantOn("redis", ["r1", "r2", "r3"]);

  const first = await rw.list({ resource: listed, limit: 1 });
  expect(first.tier).toBe("redis");
  expect(first.cursor).toMatch(/^redis,mysql,local:./);
  const seen = first.keys.map((view) => view.businessKey);

  // The fleet moves to MySQL while the walk is inside Redis: the walk still finishes Redis,
  // then visits MySQL and the local tier once each.
  await locks.override("mysql", "test", "switch mid-walk");
  await waitForTier(locks, "mysql");
  const tiers: string[] = [first.tier];
  let cursor = first.cursor;
  for (let pages = 0; cursor !== null && pages < 50; pages += 1) {
    const page = await rw.list({ resource: listed, limit: 1, cursor });
    seen.push(...page.keys.map((view) => view.businessKey));
    if (tiers.at(-1) !== page.tier) tiers.push(page.tier);
    cursor = page.cursor;
  }
  expect(cursor).toBeNull();
  expect(tiers).toEqual(["redis", "mysql", "local"]);
  expect(seen.sort()).toEqual(["m1", "m2", "r1", "r2", "r3"]);

  // A walk started now begins at the tier in force.
  const fresh = await rw.list({ resource: listed, limit: 1 });
  expect(fresh.tier).toBe("mysql");
  expect(fresh.cursor).toMatch(/^mysql,redis,local:./);
  await locks.override(null, "test", "done");
});

test("a cursor naming an unknown or repeated tier is a typed error", async () => {
  for (const bad of [
    "elsewhere:",
    "redis,redis:",
    ":",
    "redis,,mysql:",
    "mysql,local,redis,mysql:",
  ]) {
    const error = await rw
      .list({ resource: listed, cursor: bad })
      .catch((caught: unknown) => caught);
    expect(error, bad).toBeInstanceOf(InvalidArgumentError);
    expect(error, bad).toMatchObject({ field: "cursor" });
  }
});
