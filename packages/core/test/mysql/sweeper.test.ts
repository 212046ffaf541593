import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError, MysqlLeaseSweeper } from "../../src/index.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

describe("MysqlLeaseSweeper", () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await openMysqlTarget();
  });
  afterAll(async () => {
    await target.close();
  });

  async function count(where: string): Promise<number> {
    const [rows] = await target.admin.query<RowDataPacket[]>(
      `SELECT COUNT(*) AS n FROM mysql_lock WHERE ${where}`,
    );
    return Number(rows[0]?.n);
  }

  it("deletes long-expired rows in batches and never a live or recently ended one", async () => {
    const resource = uniqueResource();
    for (let batch = 0; batch < 12; batch += 1) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          target.store.acquire({
            resource,
            businessKey: `k${batch}-${i}`,
            holder: holder(),
            leaseMs: 60_000,
          }),
        ),
      );
    }
    // 1 100 rows ended an hour ago, 50 a moment ago, 50 still live, interleaved by id.
    await target.admin.query(
      "UPDATE mysql_lock SET expires_at = NOW(3) - INTERVAL 1 HOUR WHERE resource = ? AND MOD(id, 12) > 0",
      [resource],
    );
    await target.admin.query(
      "UPDATE mysql_lock SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE resource = ? AND MOD(id, 24) = 0",
      [resource],
    );
    const old = await count("expires_at < NOW(3) - INTERVAL 1 MINUTE");
    const live = await count("expires_at > NOW(3)");
    const recent = await count("expires_at <= NOW(3) AND expires_at > NOW(3) - INTERVAL 1 MINUTE");
    expect(old).toBeGreaterThan(1_000);
    expect(live).toBeGreaterThan(0);
    expect(recent).toBeGreaterThan(0);

    const sweeper = new MysqlLeaseSweeper(target.admin, { retainMs: 60_000 });
    expect((await sweeper.sweep()).leases).toBe(old);
    expect(await count("TRUE")).toBe(live + recent);
    expect(await count("expires_at > NOW(3)")).toBe(live);
    expect((await sweeper.sweep()).leases).toBe(0);
  });

  it("runs on an unref'd timer and stops", async () => {
    const sweeper = new MysqlLeaseSweeper(target.admin, { intervalMs: 10, retainMs: 10_000 });
    sweeper.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sweeper.stop();
  });

  it("rejects batches over 500 rows and retention under 10 s", () => {
    expect(() => new MysqlLeaseSweeper(target.admin, { batchSize: 501 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new MysqlLeaseSweeper(target.admin, { retainMs: 1_000 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new MysqlLeaseSweeper(target.admin, { intervalMs: 0 })).toThrow(
      InvalidArgumentError,
    );
  });
});
