import { InvalidArgumentError } from "@warden/contract";
import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LocalRwLockStore,
  MysqlEpochSource,
  MysqlRwLockStore,
  RedisRwLockStore,
  TieredRwLocks,
  type TieredLocks,
} from "../../src/index.js";
import { createPool, type Pool } from "mysql2/promise";
import { mustGrant } from "../conformance/rw-lock-store-conformance.js";
import { holder, uniqueResource } from "../support/ids.js";
import { DEGRADES, openLocks, startBackends, waitForTier } from "./tier-harness.js";

// Paging a read-write resource's holders across every tier (decision 0185): the walk's order
// is fixed by its first page and carried in the cursor, so a tier switch between two pages
// neither skips a tier nor walks one twice.

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let pool: Pool;
let locks: TieredLocks;
let rw: TieredRwLocks;
const resource = uniqueResource("rw-list-switch");

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  locks = await openLocks(redis.url, mariadb.url, "rw-list-switch");
  await waitForTier(locks, "redis");
  pool = createPool({ uri: mariadb.url, connectionLimit: 2 });
  const epochSource = new MysqlEpochSource(pool);
  rw = new TieredRwLocks({
    tiers: locks,
    redis: await RedisRwLockStore.open({
      topology: { mode: "standalone", url: redis.url },
      epochSource,
    }),
    mysql: await MysqlRwLockStore.open({ connection: mariadb.url, epochSource }),
    local: new LocalRwLockStore(),
  });
});

afterAll(async () => {
  await rw?.close();
  await locks?.close();
  await pool?.end();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

async function grantOn(tier: "redis" | "mysql", keys: readonly string[]): Promise<void> {
  await locks.override(tier, "test", `grant in ${tier}`);
  await waitForTier(locks, tier);
  for (const businessKey of keys) {
    const grant = mustGrant(
      await rw.acquireWrite(
        { resource, businessKey, holder: holder(businessKey), leaseMs: 60_000 },
        DEGRADES,
      ),
    );
    expect(grant.tier).toBe(tier);
  }
}

test("a tier switch between two pages of holder keys skips no tier and repeats none", async () => {
  await grantOn("mysql", ["m1", "m2"]);
  await grantOn("redis", ["r1", "r2", "r3"]);

  const first = await rw.list({ resource, limit: 1 });
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
    const page = await rw.list({ resource, limit: 1, cursor });
    seen.push(...page.keys.map((view) => view.businessKey));
    if (tiers.at(-1) !== page.tier) tiers.push(page.tier);
    cursor = page.cursor;
  }
  expect(cursor).toBeNull();
  expect(tiers).toEqual(["redis", "mysql", "local"]);
  expect(seen.sort()).toEqual(["m1", "m2", "r1", "r2", "r3"]);

  // A walk started now begins at the tier in force.
  const fresh = await rw.list({ resource, limit: 1 });
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
    const error = await rw.list({ resource, cursor: bad }).catch((caught: unknown) => caught);
    expect(error, bad).toBeInstanceOf(InvalidArgumentError);
    expect(error, bad).toMatchObject({ field: "cursor" });
  }
});
