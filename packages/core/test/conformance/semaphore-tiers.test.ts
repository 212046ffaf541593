import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  LockUnavailableError,
  compareFences,
  type TieredLocks,
} from "../../src/index.js";
import type { PermitGrant, PermitResult } from "../../src/store/semaphore-store.js";
import { openTieredSemaphores } from "../../src/tier/open-tiered-semaphores.js";
import type { TieredSemaphores } from "../../src/tier/tiered-semaphores.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { DEGRADES, FAST, openLocks, startBackends, waitForTier } from "../tier/tier-harness.js";

function mustGrant(result: PermitResult): PermitGrant {
  if (!result.granted) throw new Error(`expected a grant, got ${JSON.stringify(result)}`);
  return result;
}

/** The permits of a key live on all tiers together, as the stores report them. */
async function liveEverywhere(sems: TieredSemaphores, resource: string): Promise<number> {
  const views = await sems.inspect({ resource, businessKey: "k" });
  return views.reduce((sum, view) => sum + view.inUse, 0);
}

describe("TieredSemaphores across tier switches", () => {
  let redis: StandaloneRedis;
  let mariadb: MariaDbServer;
  let locks: TieredLocks;
  let sems: TieredSemaphores;

  beforeAll(async () => {
    ({ redis, mariadb } = await startBackends());
    locks = await openLocks(redis.url, mariadb.url, "sem-1");
    sems = await openTieredSemaphores(locks, {
      redis: { mode: "standalone", url: redis.url },
      mysqlUrl: mariadb.url,
      redisCommandTimeoutMs: FAST.redisCommandTimeoutMs,
      mysqlCommandTimeoutMs: FAST.mysqlCommandTimeoutMs,
      // Leases in this file are at most 2 s: the drain only has to outlast those.
      switchDrainMs: 3_000,
    });
    // The start-up drain (MySQL may hold permits of other instances) ends once MySQL has none.
    await eventually(async () => {
      if (sems.draining) throw new Error("still draining");
    }, 5_000);
  });
  afterAll(async () => {
    await sems?.close();
    await locks?.close();
    await Promise.all([redis?.stop(), mariadb?.stop()]);
  });

  const acquire = (resource: string, leaseMs = 20_000, totalPermits = 3) =>
    sems.acquire({ resource, businessKey: "k", holder: holder(), leaseMs, totalPermits }, DEGRADES);

  test("a switch counts the permits the other tier still holds, refuses their renewal there, and fences keep growing", async () => {
    const resource = uniqueResource();
    const r1 = mustGrant(await acquire(resource));
    const r2 = mustGrant(await acquire(resource));
    expect([r1.tier, r2.tier]).toEqual(["redis", "redis"]);

    await locks.override("mysql", "test", "semaphore switch");
    await waitForTier(locks, "mysql");
    expect(sems.draining).toBe(true);
    const m1 = mustGrant(await acquire(resource));
    expect(m1.tier).toBe("mysql");
    expect(compareFences(m1.fence!, r2.fence!)).toBeGreaterThan(0);
    const refused = await acquire(resource);
    expect(refused).toMatchObject({ granted: false, tier: "mysql", inUse: 1 });
    expect(await liveEverywhere(sems, resource)).toBe(3);

    // A permit on the tier left behind cannot be renewed, but can be released there.
    await expect(sems.extend({ ...r1, leaseMs: 20_000 })).rejects.toEqual(
      expect.objectContaining({ constructor: LockUnavailableError, reason: "tier-change" }),
    );
    await sems.release(r1);
    const m2 = mustGrant(await acquire(resource));
    expect(compareFences(m2.fence!, m1.fence!)).toBeGreaterThan(0);
    expect((await acquire(resource)).granted).toBe(false);
    expect(await liveEverywhere(sems, resource)).toBe(3);

    // And back: Redis counts what MySQL still holds.
    await locks.override("redis", "test", "semaphore switch back");
    await waitForTier(locks, "redis");
    expect(sems.draining).toBe(true);
    const back = await acquire(resource);
    expect(back).toMatchObject({ granted: false, tier: "redis", inUse: 1 });
    await sems.release(m1);
    const r3 = mustGrant(await acquire(resource));
    expect(r3.tier).toBe("redis");
    expect(compareFences(r3.fence!, m2.fence!)).toBeGreaterThan(0);
    await expect(sems.extend({ ...m2, leaseMs: 20_000 })).rejects.toEqual(
      expect.objectContaining({ constructor: LockUnavailableError, reason: "tier-change" }),
    );
    expect(await liveEverywhere(sems, resource)).toBe(3);

    const removed = await sems.forceRelease({ resource, businessKey: "k" });
    expect(removed.map((p) => p.lockId).sort()).toEqual([r2.lockId, m2.lockId, r3.lockId].sort());
    expect(await liveEverywhere(sems, resource)).toBe(0);
    await locks.override(null, "test", "done");
  });

  test("never more than the total held at once while the fleet switches back and forth", async () => {
    const resource = uniqueResource();
    const total = 3;
    let holding = 0;
    let most = 0;
    let granted = 0;
    const tiers = new Set<string>();
    let running = true;
    const workers = Array.from({ length: 8 }, async (_, w) => {
      while (running) {
        const result = await sems
          .acquire(
            {
              resource,
              businessKey: "k",
              holder: holder(`w${w}`),
              leaseMs: 2_000,
              totalPermits: total,
            },
            DEGRADES,
          )
          .catch(() => null);
        if (!result?.granted) {
          await sleep(5);
          continue;
        }
        granted += 1;
        tiers.add(result.tier);
        holding += 1;
        most = Math.max(most, holding);
        // Held long enough that permits straddle every switch.
        await sleep(100);
        holding -= 1;
        await sems.release(result).catch(() => undefined);
      }
    });
    for (let flip = 0; flip < 2; flip += 1) {
      await sleep(300);
      await locks.override("mysql", "test", "flip");
      await waitForTier(locks, "mysql");
      await sleep(300);
      await locks.override("redis", "test", "flip back");
      await waitForTier(locks, "redis");
    }
    await sleep(300);
    running = false;
    await Promise.all(workers);
    await locks.override(null, "test", "done");
    expect(granted).toBeGreaterThan(total);
    expect([...tiers].sort()).toEqual(["mysql", "redis"]);
    expect(most).toBeLessThanOrEqual(total);
  });

  test("list walks every tier's keys with live permits, one tier per page; `tier` lists one", async () => {
    const resource = uniqueResource("sem-list-tiers");
    const grantOn = async (tier: "redis" | "mysql", keys: readonly string[]) => {
      await locks.override(tier, "test", `grant in ${tier}`);
      await waitForTier(locks, tier);
      for (const businessKey of keys) {
        const grant = mustGrant(
          await sems.acquire(
            { resource, businessKey, holder: holder(), leaseMs: 2_000, totalPermits: 2 },
            DEGRADES,
          ),
        );
        expect(grant.tier).toBe(tier);
      }
    };
    await grantOn("mysql", ["m1"]);
    await grantOn("redis", ["r1", "r2"]);

    const seen: string[] = [];
    const tiers: string[] = [];
    let cursor: string | null | undefined;
    for (let pages = 0; cursor !== null && pages < 20; pages += 1) {
      const page = await sems.list({ resource, limit: 1, ...(cursor ? { cursor } : {}) });
      if (pages === 0) expect(page.cursor).toMatch(/^redis,mysql,local:./);
      seen.push(...page.keys.map((view) => `${view.tier}:${view.businessKey}`));
      if (tiers.at(-1) !== page.tier) tiers.push(page.tier);
      cursor = page.cursor;
    }
    expect(cursor).toBeNull();
    expect(tiers).toEqual(["redis", "mysql", "local"]);
    expect(seen.sort()).toEqual(["mysql:m1", "redis:r1", "redis:r2"]);

    const mysqlOnly = await sems.list({ resource, tier: "mysql" });
    expect(mysqlOnly).toMatchObject({ tier: "mysql", cursor: null });
    expect(mysqlOnly.keys.map((view) => view.businessKey)).toEqual(["m1"]);
    await expect(sems.list({ resource, cursor: "elsewhere:" })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    for (const businessKey of ["m1", "r1", "r2"]) {
      await sems.forceRelease({ resource, businessKey });
    }
    expect((await sems.list({ resource })).keys).toEqual([]);
    await locks.override(null, "test", "done");
  });

  test("with Redis down, the MySQL tier refuses until the permits left in Redis have surely lapsed", async () => {
    const resource = uniqueResource();
    const r1 = mustGrant(await acquire(resource, 1_000, 2));
    await redis.stop();
    await waitForTier(locks, "mysql");
    const refused = await acquire(resource, 20_000, 2);
    expect(refused).toMatchObject({ granted: false, tier: "mysql" });
    if (!refused.granted) {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(3_000);
    }
    // Bad input is still a typed error, not a drain refusal.
    await expect(
      sems.acquire(
        {
          resource,
          businessKey: "k",
          holder: holder(),
          leaseMs: 1_000,
          totalPermits: 2,
          permits: 3,
        },
        DEGRADES,
      ),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await eventually(async () => {
      if (sems.draining) throw new Error("still draining");
    }, 5_000);
    const m1 = mustGrant(await acquire(resource, 20_000, 2));
    const m2 = mustGrant(await acquire(resource, 20_000, 2));
    expect([m1.tier, m2.tier]).toEqual(["mysql", "mysql"]);
    expect(compareFences(m1.fence!, r1.fence!)).toBeGreaterThan(0);
    expect((await acquire(resource, 20_000, 2)).granted).toBe(false);
  });
});
