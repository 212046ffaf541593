import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import type { TieredLocks } from "../../src/index.js";
import { openTieredSemaphores } from "../../src/tier/open-tiered-semaphores.js";
import type { TieredSemaphores } from "../../src/tier/tiered-semaphores.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { DEGRADES, FAST, openLocks, startBackends, waitForTier } from "../tier/tier-harness.js";

// Like the mutex's recovery drain (packages/core/test/tier/drain-wall-clock.test.ts), the
// semaphore's drain after a switch measures its window on the monotonic clock: a step of
// this host's wall clock must not end it while the tier left behind still holds permits.

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let locks: TieredLocks;
let sems: TieredSemaphores;

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  locks = await openLocks(redis.url, mariadb.url, "sem-clock");
  sems = await openTieredSemaphores(locks, {
    redis: { mode: "standalone", url: redis.url },
    mysqlUrl: mariadb.url,
    redisCommandTimeoutMs: FAST.redisCommandTimeoutMs,
    mysqlCommandTimeoutMs: FAST.mysqlCommandTimeoutMs,
    switchDrainMs: 60_000,
  });
  await eventually(async () => {
    if (sems.draining) throw new Error("still draining");
  }, 5_000);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await sems?.close();
  await locks?.close();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("a wall-clock step forward does not end the drain while MySQL still holds the permits", async () => {
  const resource = uniqueResource("sem-clock");
  const acquire = () =>
    sems.acquire(
      { resource, businessKey: "k", holder: holder(), leaseMs: 20_000, totalPermits: 1 },
      DEGRADES,
    );
  await locks.override("mysql", "test", "semaphore drain clock");
  await waitForTier(locks, "mysql");
  const inMysql = await acquire();
  expect(inMysql.granted && inMysql.tier).toBe("mysql");
  await locks.override("redis", "test", "semaphore drain clock, back");
  await waitForTier(locks, "redis");
  expect(sems.draining).toBe(true);
  expect((await acquire()).granted).toBe(false);

  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + 300_000);
  expect(sems.draining).toBe(true);
  expect((await acquire()).granted).toBe(false);
  vi.restoreAllMocks();

  if (inMysql.granted) await sems.release(inMysql);
  await eventually(async () => {
    const result = await acquire();
    if (!result.granted) throw new Error("still refused");
    expect(result.tier).toBe("redis");
  }, 10_000);
  await locks.override(null, "test", "done");
});
