import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compareFences, type AcquireResult, type TieredLocks } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { DEGRADES, openLocks, startBackends, waitForTier } from "./tier-harness.js";

// An instance that starts while the fleet is on Redis drains too: other instances may have
// granted in MySQL before it started (it was restarted right after a return to Redis), and
// such a lease lives on as long as its holder renews it there. Found by the chaos run: an
// elected leader held its key in MySQL across several faults; an instance restarted after
// the return could have granted that key in Redis.

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
const opened: TieredLocks[] = [];
const resource = uniqueResource("drain-start");

async function open(instanceId: string): Promise<TieredLocks> {
  const locks = await openLocks(redis.url, mariadb.url, instanceId);
  opened.push(locks);
  return locks;
}

function tryAcquire(locks: TieredLocks, businessKey: string): Promise<AcquireResult> {
  return locks.acquire(
    { resource, businessKey, holder: holder("other"), leaseMs: 1_000 },
    DEGRADES,
  );
}

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
});

afterAll(async () => {
  await Promise.all(opened.map((locks) => locks.close()));
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("an instance started after a return to Redis refuses a key MySQL still leases, until that lease ends", async () => {
  const first = await open("instance-a");
  await waitForTier(first, "redis");
  await redis.kill9();
  await waitForTier(first, "mysql");
  const held = await first.acquire(
    { resource, businessKey: "k", holder: holder("mysql-holder"), leaseMs: 20_000 },
    DEGRADES,
  );
  if (!held.granted) throw new Error("MySQL did not grant");
  expect(held.tier).toBe("mysql");
  await redis.restart();
  await waitForTier(first, "redis");

  const started = await open("instance-b");
  await waitForTier(started, "redis");
  const refused = await tryAcquire(started, "k");
  expect(refused.granted).toBe(false);
  if (!refused.granted) expect(refused.tier).toBe("mysql");
  // Renewed in MySQL, the lease keeps the new instance's drain going.
  await first.extend({
    resource,
    businessKey: "k",
    lockId: held.lockId,
    leaseMs: 20_000,
    tier: "mysql",
  });
  await sleep(1_000);
  expect(started.draining).toBe(true);
  expect((await tryAcquire(started, "k")).granted).toBe(false);

  await first.release({ resource, businessKey: "k", lockId: held.lockId, tier: "mysql" });
  const granted = await eventually(async () => {
    const result = await tryAcquire(started, "k");
    if (!result.granted) throw new Error("still refused");
    return result;
  }, 10_000);
  expect(granted.tier).toBe("redis");
  expect(compareFences(granted.fence!, held.fence!)).toBeGreaterThan(0);
  // The next look at MySQL finds nothing live and ends the drain.
  await eventually(async () => expect(started.draining).toBe(false), 5_000);
});

test("an instance started while MySQL holds no lease ends its drain at the first look", async () => {
  const fresh = await open("instance-c");
  await waitForTier(fresh, "redis");
  await eventually(async () => expect(fresh.draining).toBe(false), 5_000);
  const result = await tryAcquire(fresh, "free");
  expect(result.granted && result.tier).toBe("redis");
});
