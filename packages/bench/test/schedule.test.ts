import { describe, expect, it } from "vitest";
import { fullPlan, planFor, quickPlan, type BenchPlan } from "../src/plan/bench-plan.js";
import { buildSchedule } from "../src/plan/schedule.js";
import { VARIANTS } from "../src/plan/variants.js";

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

  it("covers the full plan: 6 variants × 3 concurrencies × 2 key spaces, each once per round", () => {
    const full = fullPlan();
    const slots = buildSchedule(full).filter((s) => !s.warmup);
    expect(full.cells).toHaveLength(36);
    expect(slots).toHaveLength(36 * full.rounds);
    const first = slots.slice(0, VARIANTS.length).map((s) => s.cell.variant);
    expect(first).toEqual([...VARIANTS]);
  });

  it("keeps every variant in --quick, and filters by --variants", () => {
    expect(new Set(quickPlan().cells.map((c) => c.variant))).toEqual(new Set(VARIANTS));
    const only = planFor({ quick: false, variants: ["sdk", "raw-mysql"] });
    expect(new Set(only.cells.map((c) => c.variant))).toEqual(new Set(["sdk", "raw-mysql"]));
  });
});
