import { MysqlLeaseSweeper, MysqlSemaphoreSweeper } from "@warden/core";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createPool, type Pool } from "mysql2/promise";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { SweepMetrics } from "../src/metrics/sweep-metrics.js";
import { eventually, startFleet, type Fleet } from "./support/fleet.js";

// The MySQL sweepers' passes as the on-call sees them (docs/decisions/0220): counted by
// outcome, rows removed, a failed pass logged. Real sweepers on real MariaDB; a database
// without tables makes every sweeper statement fail (ER_NO_SUCH_TABLE), as a revoked
// privilege or a dropped table would.

let fleet: Fleet;
let empty: TestDatabase;
let emptyPool: Pool;
let migratedPool: Pool;

beforeAll(async () => {
  fleet = await startFleet(1);
  empty = await createTestDatabase();
  emptyPool = createPool({ uri: empty.url, connectionLimit: 2 });
  migratedPool = createPool({ uri: fleet.db.url, connectionLimit: 2 });
});

afterAll(async () => {
  await emptyPool?.end();
  await migratedPool?.end();
  await empty?.drop();
  await fleet?.close();
});

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function metricsWithLog(): { metrics: SweepMetrics; registry: Registry; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger("info", "test", { write: (line: string) => lines.push(line) });
  const metrics = new SweepMetrics(logger);
  const registry = new Registry();
  metrics.registerOn(registry);
  return { metrics, registry, lines };
}

describe("MySQL sweep metrics", () => {
  it("a running server exports every sweeper's passes and rows from its start, at 0", async () => {
    const response = await fetch(`${fleet.instances[0]!.url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const sweeper of ["lease", "rwlock", "semaphore"]) {
      // The first pass comes 30 s after the start: every series is there before it.
      expect(sample(text, `warden_mysql_sweeps_total{sweeper="${sweeper}",outcome="ok"}`)).toBe(0);
      expect(sample(text, `warden_mysql_sweeps_total{sweeper="${sweeper}",outcome="failed"}`)).toBe(
        0,
      );
      expect(sample(text, `warden_mysql_swept_rows_total{sweeper="${sweeper}"}`)).toBe(0);
    }
  });

  it("a server started with WARDEN_MYSQL_SWEEP_EVERY_MS runs every sweeper at that interval", async () => {
    const quick = await startFleet(1, { WARDEN_MYSQL_SWEEP_EVERY_MS: "1000" });
    try {
      const passes = async (sweeper: string) =>
        sample(
          await (await fetch(`${quick.instances[0]!.url}/metrics`)).text(),
          `warden_mysql_sweeps_total{sweeper="${sweeper}",outcome="ok"}`,
        ) ?? 0;
      // At the default 30 s no pass comes within these few seconds (the test above).
      for (const sweeper of ["lease", "rwlock", "semaphore"]) {
        expect(await eventually(async () => (await passes(sweeper)) >= 2, 10_000), sweeper).toBe(
          true,
        );
      }
    } finally {
      await quick.close();
    }
  });

  it("a failed pass is counted as failed and logged with the sweeper and the error", async () => {
    const { metrics, registry, lines } = metricsWithLog();
    const sweeper = new MysqlLeaseSweeper(emptyPool, {}, metrics.listener);
    await expect(sweeper.sweep()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });
    const text = await registry.metrics();
    expect(sample(text, 'warden_mysql_sweeps_total{sweeper="lease",outcome="failed"}')).toBe(1);
    expect(sample(text, 'warden_mysql_sweeps_total{sweeper="lease",outcome="ok"}')).toBe(0);
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!) as {
      level: number;
      sweeper: string;
      msg: string;
      err: { code?: string };
    };
    expect(logged.level).toBe(40);
    expect(logged.sweeper).toBe("lease");
    expect(logged.err.code).toBe("ER_NO_SUCH_TABLE");
    expect(logged.msg).toContain("MySQL sweeper pass failed");
  });

  it("a pass that works is counted as ok with the rows it removed, and logs nothing", async () => {
    const { metrics, registry, lines } = metricsWithLog();
    await migratedPool.query(
      `INSERT INTO mysql_semaphore (resource, business_key, last_fence, total_permits)
       VALUES (?, 'idle', 1, 1)`,
      [`sweep-${Date.now()}`],
    );
    const counts = await new MysqlSemaphoreSweeper(migratedPool, {}, metrics.listener).sweep();
    expect(counts.keys).toBeGreaterThanOrEqual(1);
    const text = await registry.metrics();
    expect(sample(text, 'warden_mysql_sweeps_total{sweeper="semaphore",outcome="ok"}')).toBe(1);
    expect(sample(text, 'warden_mysql_swept_rows_total{sweeper="semaphore"}')).toBe(
      counts.permits + counts.keys,
    );
    expect(lines).toEqual([]);
  });
});
