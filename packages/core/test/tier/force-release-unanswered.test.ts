// A force release must not answer "nothing removed" when a tier it had to ask did not
// answer: that tier may hold the key. Real MariaDB; the Redis is a port nothing listens on,
// so the instance runs on MySQL and every Redis call fails.
import { freePort, type MariaDbServer, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { InvalidArgumentError, LockUnavailableError, type TieredLocks } from "../../src/index.js";
import { openTieredSemaphores } from "../../src/tier/open-tiered-semaphores.js";
import type { TieredSemaphores } from "../../src/tier/tiered-semaphores.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { DEGRADES, FAST, openLocks, startBackends, waitForTier } from "./tier-harness.js";

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let locks: TieredLocks;
let sems: TieredSemaphores;

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  const nowhere = `redis://127.0.0.1:${await freePort()}`;
  locks = await openLocks(nowhere, mariadb.url, "force-release-cut-off");
  await waitForTier(locks, "mysql");
  sems = await openTieredSemaphores(locks, {
    redis: { mode: "standalone", url: nowhere },
    mysqlUrl: mariadb.url,
    redisCommandTimeoutMs: FAST.redisCommandTimeoutMs,
    mysqlCommandTimeoutMs: FAST.mysqlCommandTimeoutMs,
    switchDrainMs: 1_000,
  });
  await eventually(async () => {
    if (sems.draining) throw new Error("still draining");
  }, 10_000);
}, 60_000);

afterAll(async () => {
  await sems?.close();
  await locks?.close();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("a mutex: a lease on a tier that answers is removed; nothing removed while Redis is unreachable is LOCK_UNAVAILABLE, bad input INVALID_ARGUMENT", async () => {
  const resource = uniqueResource("force");
  const held = await locks.acquire(
    { resource, businessKey: "held", holder: holder(), leaseMs: 20_000 },
    DEGRADES,
  );
  if (!held.granted) throw new Error("expected a grant");
  expect(held.tier).toBe("mysql");
  const removed = await locks.forceRelease({ resource, businessKey: "held" });
  expect(removed?.lockId).toBe(held.lockId);
  // Free on MySQL, and Redis cannot be asked: not "nothing held".
  await expect(locks.forceRelease({ resource, businessKey: "held" })).rejects.toSatisfy(
    (error) =>
      error instanceof LockUnavailableError && /redis tier did not answer/.test(error.message),
  );
  await expect(locks.forceRelease({ resource, businessKey: "" })).rejects.toBeInstanceOf(
    InvalidArgumentError,
  );
});

test("a semaphore: grants removed from MySQL are returned although Redis failed; none removed is LOCK_UNAVAILABLE", async () => {
  const resource = uniqueResource("force-sem");
  const grant = await sems.acquire(
    { resource, businessKey: "k", holder: holder(), leaseMs: 20_000, totalPermits: 2 },
    DEGRADES,
  );
  if (!grant.granted) throw new Error("expected a grant");
  const removed = await sems.forceRelease({ resource, businessKey: "k" });
  expect(removed.map((view) => view.lockId)).toEqual([grant.lockId]);
  await expect(sems.forceRelease({ resource, businessKey: "k" })).rejects.toBeInstanceOf(
    LockUnavailableError,
  );
});

test("inspect while Redis, not the tier in force, is unreachable: a lease or grant on MySQL is found, a free key is free, not an error (decision 0200)", async () => {
  const resource = uniqueResource("inspect");
  const held = await locks.acquire(
    { resource, businessKey: "held", holder: holder(), leaseMs: 20_000 },
    DEGRADES,
  );
  if (!held.granted) throw new Error("expected a grant");
  expect((await locks.inspect({ resource, businessKey: "held" }))?.lockId).toBe(held.lockId);
  expect(await locks.inspect({ resource, businessKey: "free" })).toBeNull();
  await expect(locks.inspect({ resource, businessKey: "" })).rejects.toBeInstanceOf(
    InvalidArgumentError,
  );

  const semaphore = uniqueResource("inspect-sem");
  const grant = await sems.acquire(
    { resource: semaphore, businessKey: "k", holder: holder(), leaseMs: 20_000, totalPermits: 2 },
    DEGRADES,
  );
  if (!grant.granted) throw new Error("expected a grant");
  const views = await sems.inspect({ resource: semaphore, businessKey: "k" });
  expect(views.map((view) => view.tier)).toEqual(["mysql"]);
  expect(views[0]!.holders.map((permit) => permit.lockId)).toEqual([grant.lockId]);
  const free = await sems.inspect({ resource: semaphore, businessKey: "free" });
  expect(free.map((view) => [view.tier, view.holders.length])).toEqual([["mysql", 0]]);
});
