import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LockUnavailableError,
  type MysqlRwLockStore,
  type MysqlSemaphoreStore,
} from "../../src/index.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

let target: MysqlTarget;
let semaphores: MysqlSemaphoreStore;
let rw: MysqlRwLockStore;

beforeAll(async () => {
  target = await openMysqlTarget();
  ({ semaphores, rw } = await target.openCoordination());
});
afterAll(async () => {
  await target?.close();
});

const setTier = (tier: string) =>
  target.admin.query(
    `INSERT INTO tier_state (id, tier, version, epoch, reason, actor, instance_id, changed_at, forced)
     VALUES (1, ?, 1, 1, 'test', 'test', 'test', NOW(3), 0)
     ON DUPLICATE KEY UPDATE tier = VALUES(tier), version = version + 1`,
    [tier],
  );

/** What each kind's store refuses with once the fleet has left MySQL. */
const tierChange: unknown = expect.objectContaining({
  constructor: LockUnavailableError,
  reason: "tier-change",
});

async function rowsOf(table: string, resource: string): Promise<number> {
  const [rows] = await target.admin.query(`SELECT COUNT(*) AS n FROM ${table} WHERE resource = ?`, [
    resource,
  ]);
  return Number((rows as Array<{ n: number | string }>)[0]?.n);
}

// Found by pnpm chaos: an instance that had not yet followed the fleet back to Redis kept
// granting here and minted an epoch above the one Redis granted with, so later Redis fences
// were smaller (docs/design.md#fences-only-grow). The acquire statement itself now checks the
// shared tier, and says so with the reason a caller retries on (`tier-change`).
test("the MySQL tier grants only while the shared tier says mysql", async () => {
  const resource = uniqueResource();
  await setTier("mysql");
  const granted = await target.store.acquire({
    resource,
    businessKey: "a",
    holder: holder(),
    leaseMs: 5_000,
  });
  expect(granted.granted).toBe(true);

  await setTier("redis");
  await expect(
    target.store.acquire({ resource, businessKey: "b", holder: holder(), leaseMs: 5_000 }),
  ).rejects.toEqual(tierChange);
  expect(await rowsOf("mysql_lock", resource)).toBe(1);
});

test("a semaphore and a read-write lock on MySQL grant nothing once the shared tier is not mysql", async () => {
  const resource = uniqueResource();
  await setTier("mysql");
  const permit = { resource, businessKey: "k", leaseMs: 5_000, totalPermits: 2 };
  expect(await semaphores.acquire({ ...permit, holder: holder() })).toMatchObject({
    granted: true,
  });
  const write = { resource, businessKey: "w", leaseMs: 5_000 };
  expect(await rw.acquireWrite({ ...write, holder: holder() })).toMatchObject({ granted: true });

  await setTier("redis");
  await expect(semaphores.acquire({ ...permit, holder: holder() })).rejects.toEqual(tierChange);
  await expect(
    rw.acquireRead({ resource, businessKey: "r", holder: holder(), leaseMs: 5_000 }),
  ).rejects.toEqual(tierChange);
  expect((await semaphores.inspect({ resource, businessKey: "k" })).inUse).toBe(1);
  expect((await rw.inspect({ resource, businessKey: "r" }))?.readers ?? []).toEqual([]);
  await setTier("mysql");
});
