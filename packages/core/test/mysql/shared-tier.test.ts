import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError } from "../../src/index.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

let target: MysqlTarget;

beforeAll(async () => {
  target = await openMysqlTarget();
});
afterAll(async () => {
  await target?.close();
});

// Found by pnpm chaos: an instance that had not yet followed the fleet back to Redis kept
// granting here and minted an epoch above the one Redis granted with, so later Redis fences
// were smaller (docs/design.md#fences-only-grow). The acquire statement itself now checks the
// shared tier.
test("the MySQL tier grants only while the shared tier says mysql", async () => {
  const resource = uniqueResource();
  const setTier = (tier: string) =>
    target.admin.query(
      `INSERT INTO tier_state (id, tier, version, epoch, reason, actor, instance_id, changed_at, forced)
       VALUES (1, ?, 1, 1, 'test', 'test', 'test', NOW(3), 0)
       ON DUPLICATE KEY UPDATE tier = VALUES(tier), version = version + 1`,
      [tier],
    );
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
  ).rejects.toBeInstanceOf(LockUnavailableError);
  const [rows] = await target.admin.query(
    "SELECT COUNT(*) AS n FROM mysql_lock WHERE resource = ?",
    [resource],
  );
  expect((rows as Array<{ n: number }>)[0]?.n).toBe(1);
});
