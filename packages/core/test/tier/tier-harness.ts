import { migrate } from "@warden/db";
import {
  startMariaDb,
  startRedis,
  type MariaDbServer,
  type StandaloneRedis,
} from "@warden/testkit";
import {
  LockUnavailableError,
  OutcomeUnknownError,
  openTieredLocks,
  type ResourcePolicy,
  type Tier,
  type TieredLocks,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep } from "../support/ids.js";

/** Fast controller timings so a test sees a degrade in ~1 s and a recovery in ~2 s. */
export const FAST = Object.freeze({
  probeIntervalMs: 200,
  failuresToDegrade: 3,
  successesToRecover: 3,
  holdDownMs: 1_000,
  redisCommandTimeoutMs: 150,
  mysqlCommandTimeoutMs: 500,
});

export const DEGRADES: ResourcePolicy = { degrade: true, localFallback: "deny", waitReplicas: 0 };
export const FAIL_OPEN: ResourcePolicy = { degrade: true, localFallback: "allow", waitReplicas: 0 };

/** A private Redis and MariaDB, migrated. */
export async function startBackends(): Promise<{ redis: StandaloneRedis; mariadb: MariaDbServer }> {
  const [redis, mariadb] = await Promise.all([startRedis(), startMariaDb()]);
  await migrate(mariadb.url);
  return { redis, mariadb };
}

/** Opens TieredLocks on the backends with the fast timings. */
export function openLocks(
  redisUrl: string,
  mysqlUrl: string,
  instanceId: string,
): Promise<TieredLocks> {
  return openTieredLocks({
    redis: { mode: "standalone", url: redisUrl },
    mysqlUrl,
    instanceId,
    ...FAST,
  });
}

/** Waits until `locks` reports `tier`; returns how long it took in ms. */
export async function waitForTier(
  locks: TieredLocks,
  tier: Tier,
  timeoutMs = 15_000,
): Promise<number> {
  const started = Date.now();
  await eventually(
    async () => {
      if (locks.tier !== tier) throw new Error(`tier is ${locks.tier}, waiting for ${tier}`);
    },
    timeoutMs,
    20,
  );
  return Date.now() - started;
}

/** One grant a worker saw. */
export interface Observed {
  readonly key: string;
  readonly fence: string;
  readonly tier: Tier;
  readonly grantedAt: number;
  readonly leaseMs: number;
  /** When the release was confirmed; undefined when it failed (the lease then expires). */
  releasedAt?: number;
}

/**
 * Runs `workers` loops that lock one of `keys` keys, hold briefly and release, until
 * `stop()`; returns what they observed. Errors (a tier going down) are counted, not thrown.
 */
export function runWorkers(locks: TieredLocks, resource: string, workers: number, keys: number) {
  const observed: Observed[] = [];
  const errors = { unavailable: 0, unknown: 0, other: 0 };
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    while (running) {
      const key = `k${Math.floor(Math.random() * keys)}`;
      const leaseMs = 1_500;
      try {
        const result = await locks.acquire(
          { resource, businessKey: key, holder: holder(`w${w}`, `client-${w}`), leaseMs },
          DEGRADES,
        );
        if (!result.granted) {
          await sleep(5);
          continue;
        }
        // A worker whose release failed when Redis died re-enters its own lease later: same fence.
        if (result.reentered) {
          await locks
            .release({ resource, businessKey: key, lockId: result.lockId, tier: result.tier })
            .catch(() => undefined);
          continue;
        }
        const seen: Observed = {
          key,
          fence: result.fence ?? "",
          tier: result.tier,
          grantedAt: Date.now(),
          leaseMs,
        };
        observed.push(seen);
        await sleep(5);
        await locks.release({
          resource,
          businessKey: key,
          lockId: result.lockId,
          tier: result.tier,
        });
        seen.releasedAt = Date.now();
      } catch (error) {
        if (error instanceof LockUnavailableError) errors.unavailable += 1;
        else if (error instanceof OutcomeUnknownError) errors.unknown += 1;
        else errors.other += 1;
        await sleep(20);
      }
    }
  });
  return {
    observed,
    errors,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
