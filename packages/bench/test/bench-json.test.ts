import { describe, expect, it } from "vitest";
import { benchJson, type BenchReport } from "../src/report/bench-report.js";
import { markdownReport } from "../src/report/markdown-report.js";
import { evaluateTargets } from "../src/report/targets.js";
import { cell } from "./support/cell.js";

const runs = [
  cell({ variant: "raw-ioredis", concurrency: 64, cyclesPerSec: 20_000 }),
  cell({ variant: "core-redis", concurrency: 64, cyclesPerSec: 19_000 }),
  cell({ variant: "sdk", concurrency: 64, cyclesPerSec: 5_000 }),
  cell({ variant: "sdk", concurrency: 16, acquireP99Ms: 1.5, cyclesPerSec: 4_000 }),
  cell({ variant: "sdk-semaphore", concurrency: 16, cyclesPerSec: 3_600 }),
  cell({ variant: "sdk-semaphore", concurrency: 64, cyclesPerSec: 3_500 }),
  cell({ variant: "sdk-read-lock", concurrency: 16, cyclesPerSec: 3_400 }),
  cell({ variant: "sdk-read-lock", concurrency: 64, cyclesPerSec: 4_250 }),
  cell({ variant: "raw-mysql", concurrency: 16, cyclesPerSec: 2_000 }),
  cell({ variant: "sdk-mysql", concurrency: 16, cyclesPerSec: 1_000 }),
];

const report: BenchReport = {
  command: "pnpm bench",
  revision: { commit: "abc123", dirty: false },
  mode: "full",
  startedAt: "2026-11-29T10:00:00.000Z",
  finishedAt: "2026-11-29T10:08:00.000Z",
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
  redisMemory: {
    locks: 100_000,
    wardenBytesPerLock: 230.04,
    bareBytesPerLock: 180.02,
    keyBytes: 38,
    wardenValueBytes: 73,
    bareValueBytes: 22,
  },
  serverMemory: {
    baselineRssMb: 200,
    rssMb: 310.46,
    requestedLocks: 100_000,
    liveLocks: 100_000,
    rssPerLockKb: 1.13,
    holdGrantsPerSec: 3_333,
    waiters: 1_000,
    waiterClients: 100,
    holdAcquireMs: 30_000,
    renewalCallsPerSec: 61.04,
    renewedLeasesPerSec: 5_000,
  },
  targets: evaluateTargets(runs, {
    redisBytesPerLock: 230,
    bareKeyBytes: 180,
    renewalCallsPerClientPerSec: 0.61,
  }),
  profiles: [],
};

describe("benchJson", () => {
  const json = benchJson(report);

  it("has issue 8's fields on every run", () => {
    for (const run of json.runs) {
      expect(Object.keys(run)).toEqual(
        expect.arrayContaining([
          "variant",
          "concurrency",
          "keys",
          "cyclesPerSec",
          "successRate",
          "acquireP50Ms",
          "acquireP99Ms",
          "acquireP999Ms",
          "cycleP99Ms",
        ]),
      );
    }
    expect(json.runs[0]).toMatchObject({ variant: "raw-ioredis", concurrency: 64, keys: 10_000 });
  });

  it("has issue 8's memory fields, rounded", () => {
    expect(json.memory).toMatchObject({
      redisBytesPerLock: 230,
      bareKeyBytes: 180,
      serverRssMb: 310.5,
      renewalCallsPerSec: 61,
    });
  });

  it("survives a JSON round trip (no NaN, no typed arrays)", () => {
    const text = JSON.stringify(json);
    expect(text).not.toContain("NaN");
    expect(JSON.parse(text)).toEqual(json);
  });
});

describe("evaluateTargets", () => {
  const byId = Object.fromEntries(report.targets.map((t) => [t.id, t]));

  it("quotes throughput ratios at the highest concurrency both variants ran over 10 000 keys", () => {
    expect(byId["sdk-throughput"]).toMatchObject({ value: 0.25, met: false });
    expect(byId["sdk-throughput"]?.cell).toBe("concurrency 64, 10000 keys");
    expect(byId["core-throughput"]).toMatchObject({ value: 0.95, met: true });
    expect(byId["mysql-throughput"]).toMatchObject({ value: 0.5, met: false });
    expect(byId["mysql-throughput"]?.cell).toBe("concurrency 16, 10000 keys");
    expect(byId["semaphore-throughput"]).toMatchObject({ value: 0.7, limit: 0.8, met: false });
    expect(byId["semaphore-throughput"]?.cell).toBe("concurrency 64, 10000 keys");
    expect(byId["read-lock-throughput"]).toMatchObject({ value: 0.85, limit: 0.8, met: true });
    expect(byId["read-lock-throughput"]?.cell).toBe("concurrency 64, 10000 keys");
  });

  it("judges sdk acquire p99 at concurrency 16 and memory against twice the bare key", () => {
    expect(byId["sdk-acquire-p99"]).toMatchObject({ value: 1.5, met: true });
    expect(byId["redis-memory"]?.met).toBe(true);
  });

  it("judges renewal calls per second per holding client against 2", () => {
    expect(byId["renewal-calls"]).toMatchObject({ value: 0.61, met: true, unit: "/s" });
    const storm = evaluateTargets([], {
      redisBytesPerLock: null,
      bareKeyBytes: null,
      renewalCallsPerClientPerSec: 50,
    });
    expect(storm.find((t) => t.id === "renewal-calls")?.met).toBe(false);
  });

  it("reports a target it cannot judge as not measured", () => {
    const none = evaluateTargets([], { redisBytesPerLock: null, bareKeyBytes: null });
    expect(none.every((t) => t.met === null && t.value === null)).toBe(true);
  });
});

describe("markdownReport", () => {
  const text = markdownReport(report);

  it("is a README section with the command, revision, machine, tables, memory and targets", () => {
    expect(text.startsWith("## Benchmark\n")).toBe(true);
    expect(text).toContain("`pnpm bench` — 2026-11-29, full run of commit abc123");
    expect(text).toContain("2 × test CPU");
    expect(text).toContain("| sdk / raw-ioredis ");
    expect(text).toContain("**230 B per Warden lock** vs **180 B per bare `SET NX PX` key**");
    expect(text).toContain("(target >= 0.45×) — MISSED");
    expect(text).toContain("sdk-read-lock: `warden.rwLock(resource, key).tryRead()`");
  });

  it("has a sdk-semaphore / sdk row with the ratio at each concurrency both ran", () => {
    const row = text.split("\n").find((line) => line.startsWith("| sdk-semaphore / sdk "));
    expect(row).toBeDefined();
    expect(row).toContain("0.90×");
    expect(row).toContain("0.70×");
    expect(text).toContain("sdk-semaphore / sdk cycles/s (concurrency 64, 10000 keys): **0.70×**");
  });

  it("has a sdk-read-lock / sdk row with the ratio at each concurrency both ran", () => {
    const row = text.split("\n").find((line) => line.startsWith("| sdk-read-lock / sdk "));
    expect(row).toBeDefined();
    expect(row).toContain("0.85×");
    expect(text).toContain("sdk-read-lock / sdk cycles/s (concurrency 64, 10000 keys): **0.85×**");
  });

  it("leaves out ratio rows this run has no cells for", () => {
    expect(text).not.toContain("sdk-fenced-write / sdk");
  });

  it("gives the server's RSS per lock only when RSS with the locks is above the idle RSS", () => {
    expect(text).toContain(
      "(idle after the rounds: 200 MiB, so ~1.1 KiB per lock, waiters included;",
    );
    const below = markdownReport({
      ...report,
      serverMemory: { ...report.serverMemory!, rssMb: 190, rssPerLockKb: -0.1 },
    });
    expect(below).toContain("(idle after the rounds: 200 MiB, not below the RSS with the locks,");
    expect(below).not.toContain("KiB per lock");
  });
});
