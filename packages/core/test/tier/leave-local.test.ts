// Two instances that went to `local` on their own while Redis and MariaDB were both down
// leave it by one compare-and-set with a fresh epoch and the hold-down — never by following
// the row written before the outage (docs/decisions/0192). Real Redis and MariaDB, killed and
// restarted.
import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { TierSnapshot, TieredLocks } from "../../src/index.js";
import { openLocks, startBackends, waitForTier } from "./tier-harness.js";

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
const opened: TieredLocks[] = [];

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
});

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("instances on local by their own decision leave it by a fresh switch, not by following the pre-outage row", async () => {
  const a = await openLocks(redis.url, mariadb.url, "leave-local-a");
  opened.push(a);
  const b = await openLocks(redis.url, mariadb.url, "leave-local-b");
  opened.push(b);
  await Promise.all([waitForTier(a, "redis"), waitForTier(b, "redis")]);
  const before = a.snapshot();
  expect(b.snapshot().version).toBe(before.version);

  // MariaDB first, then Redis: nobody can write the row, so it keeps saying redis.
  await mariadb.kill9();
  await redis.kill9();
  await Promise.all([waitForTier(a, "local"), waitForTier(b, "local")]);
  expect(a.snapshot().decidedAlone && b.snapshot().decidedAlone).toBe(true);

  const seen: { instance: string; snapshot: TierSnapshot }[] = [];
  a.onTierChange((snapshot) => seen.push({ instance: "a", snapshot }));
  b.onTierChange((snapshot) => seen.push({ instance: "b", snapshot }));
  await Promise.all([mariadb.restart(), redis.restart()]);
  await Promise.all([waitForTier(a, "redis", 30_000), waitForTier(b, "redis", 30_000)]);

  // No instance ever took the row's pre-outage tier and epoch back.
  const shared = seen.filter((s) => !s.snapshot.decidedAlone);
  expect(shared.length).toBeGreaterThan(0);
  for (const { snapshot } of shared) expect(snapshot.epoch).toBeGreaterThan(before.epoch);
  // Every shared view either instance held after the outage is one the history records.
  const history = await a.history(20);
  const afterOutage = history.filter((t) => t.epoch > before.epoch);
  expect(afterOutage.at(-1)?.fromTier).toBe("local");
  for (const { snapshot } of shared) {
    expect(afterOutage.map((t) => t.epoch)).toContain(snapshot.epoch);
  }
  // Both instances end on one row.
  expect(a.snapshot().version).toBe(b.snapshot().version);
  expect(a.snapshot().epoch).toBe(b.snapshot().epoch);
}, 120_000);
