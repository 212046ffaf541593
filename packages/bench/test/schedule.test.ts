import { describe, expect, it } from "vitest";
import {
  fullPlan,
  NOT_IN_QUICK,
  planFor,
  quickPlan,
  serverInstancesOf,
  type BenchPlan,
} from "../src/plan/bench-plan.js";
import { buildSchedule } from "../src/plan/schedule.js";
import { instancesOf, serverTierOf, VARIANTS } from "../src/plan/variants.js";

const label = (plan: BenchPlan) =>
  buildSchedule(plan).map(
    (s) => `${s.round}:${s.cell.variant}@${s.cell.concurrency}/${s.cell.keys}:${s.durationMs}`,
  );

describe("buildSchedule", () => {
  const plan: BenchPlan = {
    ...quickPlan(),
    cells: [
      { variant: "raw-ioredis", concurrency: 1, keys: 10 },
      { variant: "sdk", concurrency: 16, keys: 10 },
      { variant: "sdk", concurrency: 1, keys: 10 },
      { variant: "raw-ioredis", concurrency: 16, keys: 10 },
    ],
    rounds: 2,
    roundMs: 300,
    warmupMs: 100,
  };

  it("runs a warm-up pass, then every cell once per round, comparable cells back to back in variant order", () => {
    expect(label(plan)).toEqual([
      "0:raw-ioredis@1/10:100",
      "0:sdk@1/10:100",
      "0:raw-ioredis@16/10:100",
      "0:sdk@16/10:100",
      "1:raw-ioredis@1/10:300",
      "1:sdk@1/10:300",
      "1:raw-ioredis@16/10:300",
      "1:sdk@16/10:300",
      "2:raw-ioredis@1/10:300",
      "2:sdk@1/10:300",
      "2:raw-ioredis@16/10:300",
      "2:sdk@16/10:300",
    ]);
  });

  it("marks only the warm-up slots as warm-up, and has none when warmupMs is 0", () => {
    const slots = buildSchedule(plan);
    expect(slots.filter((s) => s.warmup).every((s) => s.round === 0)).toBe(true);
    expect(buildSchedule({ ...plan, warmupMs: 0 }).some((s) => s.warmup)).toBe(false);
  });

  it("covers the full plan: every variant × 3 concurrencies × 2 key spaces, each once per round", () => {
    const full = fullPlan();
    const slots = buildSchedule(full).filter((s) => !s.warmup);
    expect(full.cells).toHaveLength(VARIANTS.length * 3 * 2);
    expect(slots).toHaveLength(VARIANTS.length * 3 * 2 * full.rounds);
    const first = slots.slice(0, VARIANTS.length).map((s) => s.cell.variant);
    expect(first).toEqual([...VARIANTS]);
  });

  it("keeps every variant but the fleet pair and core-redis-fair in --quick, and filters by --variants", () => {
    expect(new Set(quickPlan().cells.map((c) => c.variant))).toEqual(
      new Set(VARIANTS.filter((v) => !NOT_IN_QUICK.includes(v))),
    );
    expect(quickPlan().cells.map((c) => c.variant)).toContain("sdk-fair");
    const semaphore = quickPlan().cells.filter((c) => c.variant === "sdk-semaphore");
    expect(semaphore.map((c) => [c.concurrency, c.keys])).toEqual([
      [16, 10_000],
      [64, 10_000],
    ]);
    const readLock = quickPlan().cells.filter((c) => c.variant === "sdk-read-lock");
    expect(readLock.map((c) => [c.concurrency, c.keys])).toEqual([
      [16, 10_000],
      [64, 10_000],
    ]);
    const only = planFor({ quick: false, variants: ["sdk", "raw-mysql"] });
    expect(new Set(only.cells.map((c) => c.variant))).toEqual(new Set(["sdk", "raw-mysql"]));
  });

  it("starts 3 server instances only for a plan with sdk-3instances (never in --quick)", () => {
    expect(serverInstancesOf(quickPlan())).toBe(1);
    expect(serverInstancesOf(fullPlan())).toBe(3);
    expect(serverInstancesOf(planFor({ quick: false, variants: ["sdk", "sdk-3clients"] }))).toBe(1);
    expect(serverInstancesOf(planFor({ quick: false, variants: ["sdk-3instances"] }))).toBe(3);
    expect(serverInstancesOf(planFor({ quick: false, variants: ["raw-ioredis"] }))).toBe(1);
    expect(instancesOf("core-redis-fair")).toBe(0);
    expect(instancesOf("sdk-fair")).toBe(1);
    expect(instancesOf("sdk-semaphore")).toBe(1);
    expect(serverTierOf("sdk-semaphore")).toBe("redis");
    expect(instancesOf("sdk-read-lock")).toBe(1);
    expect(serverTierOf("sdk-read-lock")).toBe("redis");
  });

  it("runs every Redis-tier server variant before the MySQL ones (two tier switches a round)", () => {
    const tiers = VARIANTS.map(serverTierOf).filter((tier) => tier !== null);
    expect(tiers.lastIndexOf("redis")).toBeLessThan(tiers.indexOf("mysql"));
  });
});
