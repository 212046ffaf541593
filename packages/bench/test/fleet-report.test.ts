import { describe, expect, it } from "vitest";
import { benchJson, type BenchReport } from "../src/report/bench-report.js";
import { fleetSection, instancesRows, queueCostRows } from "../src/report/fleet-report.js";
import { markdownReport } from "../src/report/markdown-report.js";
import { cell } from "./support/cell.js";

const runs = [
  cell({ variant: "core-redis", cyclesPerSec: 10_000, cpuUsPerCycle: { redis: 40 } }),
  cell({ variant: "core-redis-fair", cyclesPerSec: 8_000, cpuUsPerCycle: { redis: 55 } }),
  cell({ variant: "sdk", cyclesPerSec: 2_000, cpuUsPerCycle: { server: 300, redis: 30 } }),
  cell({ variant: "sdk-fair", cyclesPerSec: 1_900, cpuUsPerCycle: { server: 310, redis: 34 } }),
  cell({
    variant: "sdk-3clients",
    cyclesPerSec: 1_800,
    acquireP99Ms: 20,
    cpuUsPerCycle: { server: 320, redis: 31 },
  }),
  cell({
    variant: "sdk-3instances",
    cyclesPerSec: 1_200,
    acquireP99Ms: 35,
    cpuUsPerCycle: { server: 480, redis: 33 },
  }),
  // A lone fair cell at another concurrency has no plain cell to be read against.
  cell({ variant: "sdk-fair", concurrency: 64, cpuUsPerCycle: { redis: 34 } }),
];

describe("fleet report", () => {
  it("reads 3 instances against the same 3 clients on one instance, per cell", () => {
    expect(instancesRows(runs)).toEqual([
      {
        concurrency: 16,
        keys: 10_000,
        one: { cyclesPerSec: 1_800, acquireP99Ms: 20, serverUsPerCycle: 320, redisUsPerCycle: 31 },
        three: {
          cyclesPerSec: 1_200,
          acquireP99Ms: 35,
          serverUsPerCycle: 480,
          redisUsPerCycle: 33,
        },
        throughputRatio: 1_200 / 1_800,
      },
    ]);
  });

  it("gives the queue's added Redis µs per cycle for the store and the SDK path", () => {
    const rows = queueCostRows(runs);
    expect(rows.map((r) => [r.fair, r.plain, r.concurrency, r.addedRedisUs])).toEqual([
      ["core-redis-fair", "core-redis", 16, 15],
      ["sdk-fair", "sdk", 16, 4],
    ]);
    expect(rows[0]?.throughputRatio).toBeCloseTo(0.8);
  });

  it("skips a pair whose Redis CPU was not read", () => {
    const noRedis = [
      cell({ variant: "core-redis", cpuUsPerCycle: { loadgen: 10 } }),
      cell({ variant: "core-redis-fair", cpuUsPerCycle: { redis: 50 } }),
    ];
    expect(queueCostRows(noRedis)).toEqual([]);
  });

  it("is empty without either pair, and says the box cannot scale when it has one", () => {
    expect(fleetSection([cell({ variant: "sdk" }), cell({ variant: "raw-ioredis" })])).toEqual([]);
    const text = fleetSection(runs).join("\n");
    expect(text).toContain("cannot add throughput");
    expect(text).toMatch(/\|\s+16 \|\s+10 000 \|\s+1 800 \|\s+1 200 \|\s+0\.67× \|/);
    expect(text).toMatch(
      /core-redis-fair \/ core-redis\s+\|\s+16 \|\s+10 000 \|\s+55 \|\s+40 \|\s+15 \|/,
    );
  });

  it("puts serverInstances on every run and the fleet figures in the JSON and the markdown", () => {
    const report = {
      command: "pnpm bench",
      revision: { commit: "abc123", dirty: false },
      mode: "full",
      startedAt: "2026-12-01T03:00:00.000Z",
      finishedAt: "2026-12-01T03:10:00.000Z",
      machine: {
        cpuModel: "test CPU",
        cores: 2,
        memoryGb: 24,
        os: "Linux",
        node: "v20",
        redis: "7.0.15",
        mariadb: "10.11",
      },
      loadAverage: { start: [1, 1, 1], end: [2, 2, 2] },
      plan: { rounds: 3, roundMs: 3_000, warmupMs: 1_000, leaseMs: 10_000 },
      runs,
      redisMemory: null,
      serverMemory: null,
      targets: [],
      profiles: [],
    } satisfies BenchReport;
    const json = JSON.parse(JSON.stringify(benchJson(report))) as ReturnType<typeof benchJson>;
    expect(json.runs.map((r) => [r.variant, r.serverInstances])).toEqual([
      ["core-redis", 0],
      ["core-redis-fair", 0],
      ["sdk", 1],
      ["sdk-fair", 1],
      ["sdk-3clients", 1],
      ["sdk-3instances", 3],
      ["sdk-fair", 1],
    ]);
    expect(json.fleet.instances[0]?.throughputRatio).toBe(0.667);
    expect(json.fleet.queueRedisCost.map((r) => r.addedRedisUsPerCycle)).toEqual([15, 4]);
    const markdown = markdownReport(report);
    expect(markdown).toContain("1 vs 3 server instances");
    expect(markdown).toContain("sdk-3instances / sdk-3clients");
  });
});
