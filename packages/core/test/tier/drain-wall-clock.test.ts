import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { compareFences, type TieredLocks } from "../../src/index.js";
import { holder, uniqueResource } from "../support/ids.js";
import { DEGRADES, openLocks, startBackends, waitForTier } from "./tier-harness.js";

// The recovery drain after a return to Redis measures its deadlines on the monotonic clock:
// a step of this host's wall clock (NTP, an operator) must not end it while MySQL still
// leases a key. Found by the chaos run: one instance's clock stepped +300 s right after a
// return, it granted in Redis a key whose MySQL lease its holder kept renewing, and that
// holder went on believing it held the key with a fence older than the Redis grant's.

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let locks: TieredLocks;
const resource = uniqueResource("drain-clock");

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  locks = await openLocks(redis.url, mariadb.url, "instance-clock");
  await waitForTier(locks, "redis");
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await locks?.close();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("a wall-clock step forward during the recovery drain does not let Redis grant a key MySQL still leases", async () => {
  await redis.kill9();
  await waitForTier(locks, "mysql");
  const held = await locks.acquire(
    { resource, businessKey: "k", holder: holder("mysql-holder"), leaseMs: 20_000 },
    DEGRADES,
  );
  if (!held.granted) throw new Error("MySQL did not grant");
  expect(held.tier).toBe("mysql");
  await redis.restart();
  await waitForTier(locks, "redis");
  expect(locks.draining).toBe(true);
  const before = await locks.acquire(
    { resource, businessKey: "k", holder: holder("other"), leaseMs: 1_000 },
    DEGRADES,
  );
  expect(before.granted).toBe(false);

  // The host's wall clock jumps 300 s ahead (past a max lease of 60 s).
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + 300_000);
  expect(locks.draining).toBe(true);
  const after = await locks.acquire(
    { resource, businessKey: "k", holder: holder("other"), leaseMs: 1_000 },
    DEGRADES,
  );
  expect(after.granted).toBe(false);
  if (!after.granted) expect(after.tier).toBe("mysql");
  vi.restoreAllMocks();

  // The MySQL holder releases: the drain ends and Redis grants the key with a larger fence.
  await locks.release({ resource, businessKey: "k", lockId: held.lockId, tier: "mysql" });
  let granted: Awaited<ReturnType<TieredLocks["acquire"]>> | null = null;
  for (let attempt = 0; attempt < 200 && !granted?.granted; attempt += 1) {
    granted = await locks.acquire(
      { resource, businessKey: "k", holder: holder("other"), leaseMs: 1_000 },
      DEGRADES,
    );
    if (!granted.granted) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(granted?.granted && granted.tier).toBe("redis");
  if (granted?.granted) expect(compareFences(granted.fence!, held.fence!)).toBeGreaterThan(0);
});
