import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError, compareFences, type TieredLocks } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import {
  DEGRADES,
  FAIL_OPEN,
  FAST,
  openLocks,
  runWorkers,
  startBackends,
  waitForTier,
  type Observed,
} from "./tier-harness.js";

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let locks: TieredLocks;
const resource = uniqueResource("ledger");
const observed: Observed[] = [];
let killedAt = 0;

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  locks = await openLocks(redis.url, mariadb.url, "instance-a");
  await waitForTier(locks, "redis");
});

afterAll(async () => {
  await locks?.close();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("killing Redis under 20 workers moves grants to MySQL within the probe bound, fences still growing", async () => {
  const workers = runWorkers(locks, resource, 20, 10);
  await eventually(async () =>
    expect(workers.observed.filter((o) => o.tier === "redis").length).toBeGreaterThan(200),
  );
  await redis.kill9();
  killedAt = Date.now();
  const tookMs = await waitForTier(locks, "mysql");
  // 3 failed probes 200 ms apart, each up to 150 ms, plus the compare-and-set.
  expect(tookMs).toBeLessThan(FAST.probeIntervalMs * (FAST.failuresToDegrade + 3) + 1_000);
  await eventually(async () =>
    expect(workers.observed.filter((o) => o.tier === "mysql").length).toBeGreaterThan(200),
  );
  await workers.stop();
  observed.push(...workers.observed);

  const byKey = new Map<string, Observed[]>();
  for (const o of observed) byKey.set(o.key, [...(byKey.get(o.key) ?? []), o]);
  for (const [key, grants] of byKey) {
    const inOrder = [...grants].sort((a, b) => a.grantedAt - b.grantedAt);
    for (let i = 1; i < inOrder.length; i += 1) {
      expect(
        compareFences(inOrder[i]!.fence, inOrder[i - 1]!.fence),
        `${key} grant ${i}`,
      ).toBeGreaterThan(0);
    }
  }
  const lastRedis = observed.filter((o) => o.tier === "redis").map((o) => o.fence);
  for (const mysqlGrant of observed.filter((o) => o.tier === "mysql")) {
    for (const fence of lastRedis)
      expect(compareFences(mysqlGrant.fence, fence)).toBeGreaterThan(0);
  }
});

test("MySQL never granted a key whose Redis lease was live and mirrored", () => {
  expect(observed.some((o) => o.tier === "redis" && o.releasedAt === undefined)).toBe(true);
  // A Redis grant made in the mirror's last 200 ms window before the kill may be unmirrored:
  // the epoch bump fences those, as the test above shows.
  const mirrored = observed.filter(
    (o) => o.tier === "redis" && o.releasedAt === undefined && o.grantedAt < killedAt - 400,
  );
  for (const redisLease of mirrored) {
    const endsAt = redisLease.grantedAt + redisLease.leaseMs;
    const overlapping = observed.filter(
      (o) => o.tier === "mysql" && o.key === redisLease.key && o.grantedAt < endsAt - 50,
    );
    expect(overlapping, `key ${redisLease.key}`).toEqual([]);
  }
});

test("after Redis returns the tier goes back after the hold-down, and a key still leased in MySQL is refused in Redis", async () => {
  const held = await locks.acquire(
    { resource, businessKey: "long", holder: holder("mysql-holder"), leaseMs: 20_000 },
    DEGRADES,
  );
  expect(held.granted && held.tier).toBe("mysql");
  const mysqlFence = held.granted ? held.fence! : "";
  await redis.restart();
  const tookMs = await waitForTier(locks, "redis");
  expect(tookMs).toBeGreaterThanOrEqual(FAST.holdDownMs - FAST.probeIntervalMs);
  const blocked = await locks.acquire(
    { resource, businessKey: "long", holder: holder("other"), leaseMs: 1_000 },
    DEGRADES,
  );
  expect(blocked.granted).toBe(false);
  if (!blocked.granted) expect(blocked.tier).toBe("mysql");
  const fresh = await eventually(async () => {
    const r = await locks.acquire(
      { resource, businessKey: "fresh", holder: holder(), leaseMs: 1_000 },
      DEGRADES,
    );
    if (!r.granted) throw new Error("not granted");
    return r;
  });
  expect(fresh.tier).toBe("redis");
  expect(compareFences(fresh.fence!, mysqlFence)).toBeGreaterThan(0);
  // The drain lasts while MySQL holds a live lease (a renewal there keeps it going)...
  const renewed = held.granted
    ? await locks.extend({
        resource,
        businessKey: "long",
        lockId: held.lockId,
        leaseMs: 20_000,
        tier: "mysql",
      })
    : null;
  expect(renewed?.tier).toBe("mysql");
  await sleep(FAST.probeIntervalMs * 3);
  expect(locks.draining).toBe(true);
  if (held.granted)
    await locks.release({ resource, businessKey: "long", lockId: held.lockId, tier: "mysql" });
  // ...and ends once MySQL holds none, long before a max lease (60 s) has passed.
  await eventually(async () => expect(locks.draining).toBe(false), 3_000);
  const nowFree = await locks.acquire(
    { resource, businessKey: "long", holder: holder("other"), leaseMs: 1_000 },
    DEGRADES,
  );
  expect(nowFree.granted && nowFree.tier).toBe("redis");
  expect((await locks.history(10)).map((t) => t.toTier).slice(0, 2)).toEqual(["redis", "mysql"]);
});

test("with Redis and MariaDB both down, allow resources get local locks and deny resources fail closed; both back → redis", async () => {
  await redis.kill9();
  await waitForTier(locks, "mysql");
  await mariadb.kill9();
  await waitForTier(locks, "local");
  expect(locks.snapshot().decidedAlone).toBe(true);
  const local = await locks.acquire(
    { resource, businessKey: "x", holder: holder(), leaseMs: 1_000 },
    FAIL_OPEN,
  );
  expect(local.granted && local.tier).toBe("local");
  expect(local.granted && local.fence).toBeNull();
  await expect(
    locks.acquire({ resource, businessKey: "y", holder: holder(), leaseMs: 1_000 }, DEGRADES),
  ).rejects.toBeInstanceOf(LockUnavailableError);
  await expect(
    locks.acquire({ resource, businessKey: "y", holder: holder(), leaseMs: 1_000 }, DEGRADES),
  ).rejects.toMatchObject({ reason: "fail-closed" });
  await Promise.all([mariadb.restart(), redis.restart()]);
  await waitForTier(locks, "redis", 20_000);
  expect(locks.snapshot().decidedAlone).toBe(false);
  await sleep(FAST.probeIntervalMs * 2);
  const back = await eventually(async () => {
    const r = await locks.acquire(
      { resource, businessKey: "y", holder: holder(), leaseMs: 1_000 },
      DEGRADES,
    );
    if (!r.granted) throw new Error("not granted");
    return r;
  });
  expect(back.tier).toBe("redis");
});
