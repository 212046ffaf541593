import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LocalRwLockStore,
  MysqlEpochSource,
  MysqlRwLockStore,
  RedisRwLockStore,
  TieredRwLocks,
  compareFences,
  type TieredLocks,
} from "../../src/index.js";
import { mustGrant } from "../conformance/rw-lock-store-conformance.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { DEGRADES, openLocks, startBackends, waitForTier } from "./tier-harness.js";

// The read-write twin of drain-on-start.test.ts (decision 0185): read-write locks opened while
// the fleet is on Redis drain too, because other instances may have granted in MySQL before
// this one started (restarted right after a return to Redis), and such a grant lives on as
// long as its holder renews it there.

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let pool: Pool;
let locks: TieredLocks;
const opened: TieredRwLocks[] = [];
const resource = uniqueResource("rw-drain-start");

async function openRw(): Promise<TieredRwLocks> {
  const epochSource = new MysqlEpochSource(pool);
  const rw = new TieredRwLocks({
    tiers: locks,
    redis: await RedisRwLockStore.open({
      topology: { mode: "standalone", url: redis.url },
      epochSource,
    }),
    mysql: await MysqlRwLockStore.open({ connection: mariadb.url, epochSource }),
    local: new LocalRwLockStore(),
  });
  opened.push(rw);
  return rw;
}

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  locks = await openLocks(redis.url, mariadb.url, "rw-drain-start");
  await waitForTier(locks, "redis");
  pool = createPool({ uri: mariadb.url, connectionLimit: 2 });
});

afterAll(async () => {
  await Promise.all(opened.map((rw) => rw.close()));
  await locks?.close();
  await pool?.end();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("read-write locks opened after a return to Redis refuse a key MySQL still grants, until it ends", async () => {
  const first = await openRw();
  await locks.override("mysql", "test", "grant in MySQL");
  await waitForTier(locks, "mysql");
  const key = { resource, businessKey: "k" };
  const held = mustGrant(
    await first.acquireWrite({ ...key, holder: holder("mysql-writer"), leaseMs: 20_000 }, DEGRADES),
  );
  expect(held.tier).toBe("mysql");
  await locks.override("redis", "test", "back to Redis");
  await waitForTier(locks, "redis");

  const started = await openRw();
  expect(started.draining).toBe(true);
  for (const result of [
    await started.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 }, DEGRADES),
    await started.acquireWrite({ ...key, holder: holder("w"), leaseMs: 1_000 }, DEGRADES),
  ]) {
    expect(result.granted).toBe(false);
    if (!result.granted) {
      expect(result.reason).toBe("write-held");
      expect(result.tier).toBe("mysql");
    }
  }
  // Renewed in MySQL, the grant keeps the new instance's drain going.
  await first.extend({ ...key, lockId: held.lockId, leaseMs: 20_000, tier: "mysql" });
  await sleep(1_000);
  expect(started.draining).toBe(true);
  expect(
    (await started.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 }, DEGRADES)).granted,
  ).toBe(false);

  await first.release({ ...key, lockId: held.lockId, tier: "mysql" });
  await eventually(async () => expect(started.draining).toBe(false), 5_000);
  const reader = mustGrant(
    await started.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 }, DEGRADES),
  );
  expect(reader.tier).toBe("redis");
  expect(compareFences(reader.fence!, held.fence!)).toBeGreaterThan(0);
  await started.release({ ...key, lockId: reader.lockId, tier: "redis" });
  await locks.override(null, "test", "done");
});

test("read-write locks opened while MySQL holds no grant end their drain at the first look", async () => {
  await waitForTier(locks, "redis");
  const fresh = await openRw();
  await eventually(async () => expect(fresh.draining).toBe(false), 5_000);
  const grant = mustGrant(
    await fresh.acquireWrite(
      { resource, businessKey: "free", holder: holder("w"), leaseMs: 1_000 },
      DEGRADES,
    ),
  );
  expect(grant.tier).toBe("redis");
});
