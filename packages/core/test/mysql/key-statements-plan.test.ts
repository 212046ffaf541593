import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTEND_LOCK } from "../../src/mysql/sql/extend-lock.js";
import { FORCE_RELEASE, OPERATOR_FORCE_RELEASE } from "../../src/mysql/sql/force-release.js";
import { RELEASE_LOCK } from "../../src/mysql/sql/release-lock.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

interface PlanRow extends RowDataPacket {
  key: string | null;
}

/** The first statement of a round trip (the UPDATE that decides). */
function firstStatement(sql: string): string {
  return sql.split(";")[0]!;
}

// With many ended rows and one live lease, MariaDB 10.11 estimates `expires_at > NOW(3)` at
// one row and prefers that short index over the unique key: the statement then scans and
// next-key-locks the live end of `expires_at`'s index, and two releases deadlock each other
// (docs/decisions/0205). Each statement that changes one key's grant names the unique key.
describe("MySQL tier: statements on one key use the (resource, business_key) key", () => {
  let target: MysqlTarget;
  let resource: string;
  let lockId: string;

  beforeAll(async () => {
    target = await openMysqlTarget();
    resource = uniqueResource();
    await target.admin.query(
      `INSERT INTO mysql_lock (resource, business_key, lock_id, client_id, owner_id, fence,
         reentry, granted_at, expires_at)
       SELECT ?, CONCAT('ended-', seq), 'ended-lock-id-00000000', 'c', 'o', seq, 1,
              NOW(3) - INTERVAL 1 HOUR, NOW(3) - INTERVAL 1 HOUR FROM seq_1_to_3000`,
      [resource],
    );
    const grant = await target.store.acquire({
      resource,
      businessKey: "live",
      holder: holder("o1"),
      leaseMs: 60_000,
    });
    if (!grant.granted) throw new Error("the live lease was not granted");
    lockId = grant.lockId;
    await target.admin.query("ANALYZE TABLE mysql_lock");
  });
  afterAll(async () => {
    await target.close();
  });

  const statements: [name: string, sql: string, params: () => unknown[]][] = [
    ["release", RELEASE_LOCK, () => [resource, "live", lockId]],
    ["extend", EXTEND_LOCK, () => [5_000, resource, "live", lockId]],
    ["operator force-release", OPERATOR_FORCE_RELEASE, () => [resource, "live", lockId]],
    ["cleanup force-release", FORCE_RELEASE, () => [resource, "live", lockId]],
  ];

  it.each(statements)("%s", async (_name, sql, params) => {
    const [rows] = await target.admin.query<PlanRow[]>(`EXPLAIN ${firstStatement(sql)}`, params());
    expect(rows.map((row) => row.key)).toEqual(["mysql_lock_resource_business_key_key"]);
  });
});
