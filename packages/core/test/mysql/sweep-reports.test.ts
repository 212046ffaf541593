import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MysqlLeaseSweeper,
  MysqlRwLockStore,
  MysqlRwSweeper,
  MysqlSemaphoreStore,
  MysqlSemaphoreSweeper,
  type SweepReport,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// Every sweeper pass is reported (decision 0220): what it removed when it worked, the
// statement's error when it did not, whether the timer or a caller ran it.

let target: MysqlTarget;
// A database with no tables: every sweeper statement on it fails (ER_NO_SUCH_TABLE), a real
// failure of a real server (as a revoked privilege or a dropped table would be).
let empty: TestDatabase;
let emptyPool: Pool;

beforeAll(async () => {
  target = await openMysqlTarget();
  empty = await createTestDatabase();
  emptyPool = createPool({ uri: empty.url, connectionLimit: 2 });
});

afterAll(async () => {
  await emptyPool?.end();
  await empty?.drop();
  await target?.close();
});

function collector(): { reports: SweepReport[]; listener: (report: SweepReport) => void } {
  const reports: SweepReport[] = [];
  return { reports, listener: (report) => reports.push(report) };
}

describe("sweep reports", () => {
  it("a lease sweeper's pass reports the lease and waiter rows it removed", async () => {
    const resource = uniqueResource();
    for (const key of ["a", "b", "c"]) {
      await target.store.acquire({ resource, businessKey: key, holder: holder(), leaseMs: 60_000 });
    }
    await target.admin.query(
      "UPDATE mysql_lock SET expires_at = NOW(3) - INTERVAL 1 HOUR WHERE resource = ?",
      [resource],
    );
    const { reports, listener } = collector();
    const sweeper = new MysqlLeaseSweeper(target.admin, { retainMs: 60_000 }, listener);
    const counts = await sweeper.sweep();
    expect(counts.leases).toBeGreaterThanOrEqual(3);
    expect(reports.map(({ durationMs, ...rest }) => ({ ...rest, timed: durationMs >= 0 }))).toEqual(
      [{ sweeper: "lease", outcome: "ok", rows: counts.leases + counts.waiters, timed: true }],
    );
  });

  it("the semaphore and read-write sweepers report every table's rows together", async () => {
    const resource = uniqueResource();
    const semaphores = await MysqlSemaphoreStore.open({
      connection: target.db.url,
      epochSource: target.epochSource,
    });
    const rw = await MysqlRwLockStore.open({
      connection: target.db.url,
      epochSource: target.epochSource,
    });
    try {
      const permit = await semaphores.acquire({
        resource,
        businessKey: "s",
        holder: holder(),
        leaseMs: 30_000,
        totalPermits: 2,
      });
      expect(permit.granted).toBe(true);
      const grant = await rw.acquireRead({
        resource,
        businessKey: "r",
        holder: holder(),
        leaseMs: 30_000,
      });
      expect(grant.granted).toBe(true);
      await target.admin.query(
        "UPDATE mysql_semaphore_permit SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE resource = ?",
        [resource],
      );
      await target.admin.query(
        "UPDATE mysql_rw_grant SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE resource = ?",
        [resource],
      );
      const { reports, listener } = collector();
      const semaphoreCounts = await new MysqlSemaphoreSweeper(target.admin, {}, listener).sweep();
      const rwCounts = await new MysqlRwSweeper(target.admin, {}, listener).sweep();
      // Each dead holder's grant row and then its idle key row.
      expect(semaphoreCounts.permits).toBeGreaterThanOrEqual(1);
      expect(semaphoreCounts.keys).toBeGreaterThanOrEqual(1);
      expect(rwCounts.grants).toBeGreaterThanOrEqual(1);
      expect(rwCounts.keys).toBeGreaterThanOrEqual(1);
      expect(reports.map(({ sweeper, outcome, rows }) => ({ sweeper, outcome, rows }))).toEqual([
        {
          sweeper: "semaphore",
          outcome: "ok",
          rows: semaphoreCounts.permits + semaphoreCounts.keys,
        },
        {
          sweeper: "rwlock",
          outcome: "ok",
          rows: rwCounts.grants + rwCounts.intents + rwCounts.keys,
        },
      ]);
    } finally {
      await semaphores.close();
      await rw.close();
    }
  });

  it("a failed pass is reported with the statement's error and still rejects its caller", async () => {
    const { reports, listener } = collector();
    const sweeper = new MysqlSemaphoreSweeper(emptyPool, {}, listener);
    await expect(sweeper.sweep()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });
    expect(reports).toHaveLength(1);
    const [report] = reports;
    expect(report).toMatchObject({ sweeper: "semaphore", outcome: "failed", rows: 0 });
    expect(report!.durationMs).toBeGreaterThanOrEqual(0);
    expect(report!.outcome === "failed" && report!.error).toMatchObject({
      code: "ER_NO_SUCH_TABLE",
    });
  });

  it("the timer's passes are reported, failures included, and the timer goes on", async () => {
    const { reports, listener } = collector();
    const sweeper = new MysqlRwSweeper(emptyPool, { intervalMs: 20 }, listener);
    sweeper.start();
    try {
      await eventually(async () => expect(reports.length).toBeGreaterThanOrEqual(3), 10_000, 20);
    } finally {
      await sweeper.stop();
    }
    expect(new Set(reports.map(({ sweeper: name, outcome }) => `${name}:${outcome}`))).toEqual(
      new Set(["rwlock:failed"]),
    );
  });

  it("a listener that throws changes no pass's outcome", async () => {
    const throwing = () => {
      throw new Error("listener failed");
    };
    const counts = await new MysqlLeaseSweeper(target.admin, {}, throwing).sweep();
    expect(Object.keys(counts).sort()).toEqual(["leases", "waiters"]);
    await expect(new MysqlLeaseSweeper(emptyPool, {}, throwing).sweep()).rejects.toMatchObject({
      code: "ER_NO_SUCH_TABLE",
    });
  });
});
