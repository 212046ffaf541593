import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// The remaining lease the MySQL tier reports (TTL_MS, shared by the mutex, semaphore and
// read-write statements) is on the database clock. When that clock steps back after a
// grant, it must still never report more than the lease runs from its grant.
describe("MySQL tier: the reported remaining lease", () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await openMysqlTarget();
  });
  afterAll(async () => {
    await target.close();
  });

  it("is never more than the lease, even when the database clock is behind the grant", async () => {
    const resource = uniqueResource();
    const key = { resource, businessKey: "k" };
    const granted = await target.store.acquire({ ...key, holder: holder("a"), leaseMs: 10_000 });
    expect(granted.granted).toBe(true);
    // As if the clock stepped back 2 s right after the grant: the row's times are now ahead.
    await target.admin.query(
      `UPDATE mysql_lock SET granted_at = granted_at + INTERVAL 2 SECOND,
         expires_at = expires_at + INTERVAL 2 SECOND WHERE resource = ?`,
      [resource],
    );
    const refused = await target.store.acquire({ ...key, holder: holder("b"), leaseMs: 10_000 });
    expect(refused.granted).toBe(false);
    if (refused.granted) return;
    expect(refused.ttlMs).toBeGreaterThan(0);
    expect(refused.ttlMs).toBeLessThanOrEqual(10_000);
  });
});
