import type { MariaDbServer, StandaloneRedis } from "@warden/testkit";
import { createPool, type Pool, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, expect, test } from "vitest";
import { REDIS_MIRROR_HOLDER } from "../../src/mysql/acquire-step.js";
import {
  InvalidArgumentError,
  LOCK_DELAY_HOLDER,
  compareFences,
  type AcquireInput,
  type AcquireResult,
  type TieredLocks,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { DEGRADES, openLocks, startBackends, waitForTier } from "./tier-harness.js";

// docs/decisions/0178: a lock-delay started on one tier holds the key back on the tier the
// fleet switches to — Redis → MySQL through the lease mirror, MySQL → Redis through the
// recovery drain.

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
let locks: TieredLocks;
let admin: Pool;
const resource = uniqueResource("delay");
/** Long enough that a degrade or a recovery on a loaded box ends well inside it. */
const DELAY_MS = 12_000;
/** The lease mirror's default clock margin (LeaseMirror). */
const MIRROR_MARGIN_MS = 1_000;

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
  admin = createPool({ uri: mariadb.url, connectionLimit: 2 });
  locks = await openLocks(redis.url, mariadb.url, "instance-a");
  await waitForTier(locks, "redis");
});

afterAll(async () => {
  await locks?.close();
  await admin?.end();
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

function input(businessKey: string, leaseMs: number, lockDelayMs?: number): AcquireInput {
  return { resource, businessKey, holder: holder(), leaseMs, lockDelayMs };
}

async function acquire(businessKey: string, leaseMs: number, lockDelayMs?: number) {
  return locks.acquire(input(businessKey, leaseMs, lockDelayMs), DEGRADES);
}

function mustGrant(result: AcquireResult) {
  if (!result.granted) throw new Error(`refused: ${JSON.stringify(result)}`);
  return result;
}

/** Waits for time to pass (a lease to run out); the assertions that follow are the proof. */
async function waitPast(atMs: number): Promise<void> {
  while (Date.now() <= atMs) await sleep(Math.min(200, atMs - Date.now() + 1));
}

/** The key's mirror row: ms until it expires on MySQL's clock, or null when there is none. */
async function mirrorRowMs(businessKey: string): Promise<number | null> {
  const [rows] = await admin.query<RowDataPacket[]>(
    `SELECT TIMESTAMPDIFF(MICROSECOND, NOW(3), expires_at) DIV 1000 AS ms
       FROM redis_lease_mirror WHERE resource = ? AND business_key = ?`,
    [resource, businessKey],
  );
  return rows[0] ? Number(rows[0].ms) : null;
}

/** Retries an acquire until granted; returns the grant and when it came. */
async function grantedEventually(args: AcquireInput, timeoutMs: number) {
  return eventually(
    async () => {
      const result = mustGrant(await locks.acquire({ ...args, holder: holder() }, DEGRADES));
      return { result, at: Date.now() };
    },
    timeoutMs,
    200,
  );
}

test("Redis → MySQL: a delay started on Redis (expiry, force release) holds the key back on MySQL", async () => {
  const expiring = mustGrant(await acquire("expired", 1_000, DELAY_MS));
  const expiringSentBefore = Date.now();
  const forced = mustGrant(await acquire("forced", 20_000, DELAY_MS));
  const released = mustGrant(await acquire("released", 20_000, DELAY_MS));
  const plain = mustGrant(await acquire("plain", 1_000));
  expect([expiring, forced, released, plain].map((g) => g.tier)).toEqual(Array(4).fill("redis"));
  await locks.release({
    resource,
    businessKey: "released",
    lockId: released.lockId,
    tier: "redis",
  });
  const forcedAt = Date.now();
  expect(await locks.forceRelease({ resource, businessKey: "forced" })).not.toBeNull();

  // The mirror has carried each to MySQL: the expiring lease with its delay, the forced one
  // as its delay from the removal (not the 20 s lease), the released one not at all.
  await eventually(async () => {
    expect(await mirrorRowMs("expired")).toBeGreaterThan(DELAY_MS);
    const forcedMs = await mirrorRowMs("forced");
    expect(forcedMs).not.toBeNull();
    expect(forcedMs!).toBeLessThanOrEqual(DELAY_MS + MIRROR_MARGIN_MS);
    expect(await mirrorRowMs("released")).toBeNull();
  }, 10_000);

  await redis.kill9();
  await waitForTier(locks, "mysql");
  // Past the lease and the mirror's margin: without the delay MySQL would grant now.
  await waitPast(expiringSentBefore + 1_000 + MIRROR_MARGIN_MS + 500);

  for (const key of ["expired", "forced"]) {
    const refused = await acquire(key, 1_000, DELAY_MS);
    expect(refused.granted, key).toBe(false);
    if (refused.granted) continue;
    expect(refused.tier).toBe("mysql");
    expect(refused.holder.clientId).toBe(REDIS_MIRROR_HOLDER);
    expect(refused.ttlMs).toBeGreaterThan(0);
  }
  // A voluntary release starts no delay, and a lease without one ends at its expiry.
  expect(mustGrant(await acquire("released", 1_000, DELAY_MS)).tier).toBe("mysql");
  expect(mustGrant(await acquire("plain", 1_000)).tier).toBe("mysql");

  const [afterExpiry, afterForce] = await Promise.all([
    grantedEventually(input("expired", 1_000, DELAY_MS), DELAY_MS + 20_000),
    grantedEventually(input("forced", 1_000, DELAY_MS), DELAY_MS + 20_000),
  ]);
  expect(afterExpiry.result.tier).toBe("mysql");
  expect(afterExpiry.at).toBeGreaterThanOrEqual(expiringSentBefore + 1_000 + DELAY_MS);
  expect(afterForce.at).toBeGreaterThanOrEqual(forcedAt + DELAY_MS);
  expect(compareFences(afterExpiry.result.fence!, expiring.fence!)).toBeGreaterThan(0);
  expect(compareFences(afterForce.result.fence!, forced.fence!)).toBeGreaterThan(0);
}, 90_000);

test("MySQL → Redis: a delay started on MySQL holds the key back on Redis through the recovery drain", async () => {
  expect(locks.tier).toBe("mysql");
  const sentBefore = Date.now();
  const expiring = mustGrant(await acquire("m-expired", 1_000, DELAY_MS));
  const forced = mustGrant(await acquire("m-forced", 20_000, DELAY_MS));
  expect([expiring.tier, forced.tier]).toEqual(["mysql", "mysql"]);
  const forcedAt = Date.now();
  expect((await locks.forceRelease({ resource, businessKey: "m-forced" }))?.tier).toBe("mysql");

  await redis.restart();
  await waitForTier(locks, "redis", 20_000);
  await waitPast(sentBefore + 1_000 + 200);
  // MySQL holds no live lease, so the lease drain ends; its delays still hold keys back.
  await eventually(async () => expect(locks.draining).toBe(false), 5_000);

  for (const key of ["m-expired", "m-forced"]) {
    const refused = await acquire(key, 1_000, DELAY_MS);
    expect(refused.granted, key).toBe(false);
    if (refused.granted) continue;
    expect(refused).toMatchObject({ tier: "mysql", holder: LOCK_DELAY_HOLDER });
    expect(refused.ttlMs).toBeGreaterThan(0);
    expect(refused.ttlMs).toBeLessThanOrEqual(DELAY_MS);
  }
  expect(await locks.inspectDelay({ resource, businessKey: "m-forced" })).toMatchObject({
    tier: "mysql",
  });
  // Bad input is refused as such while delays drain, not as a delay or an unreachable MySQL.
  await expect(acquire("m-forced", 0, DELAY_MS)).rejects.toBeInstanceOf(InvalidArgumentError);
  await expect(acquire("", 1_000, DELAY_MS)).rejects.toBeInstanceOf(InvalidArgumentError);
  // Keys MySQL does not hold back are granted on Redis at once.
  expect(mustGrant(await acquire("m-fresh", 1_000, DELAY_MS)).tier).toBe("redis");

  const [afterExpiry, afterForce] = await Promise.all([
    grantedEventually(input("m-expired", 1_000, DELAY_MS), DELAY_MS + 20_000),
    grantedEventually(input("m-forced", 1_000, DELAY_MS), DELAY_MS + 20_000),
  ]);
  expect([afterExpiry.result.tier, afterForce.result.tier]).toEqual(["redis", "redis"]);
  expect(afterExpiry.at).toBeGreaterThanOrEqual(sentBefore + 1_000 + DELAY_MS);
  expect(afterForce.at).toBeGreaterThanOrEqual(forcedAt + DELAY_MS);
  expect(compareFences(afterExpiry.result.fence!, expiring.fence!)).toBeGreaterThan(0);
  expect(compareFences(afterForce.result.fence!, forced.fence!)).toBeGreaterThan(0);
}, 90_000);
