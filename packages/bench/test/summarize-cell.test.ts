import { describe, expect, it } from "vitest";
import type { SlotResult } from "../src/stats/slot-result.js";
import { summarizeCell } from "../src/stats/summarize-cell.js";

function slot(overrides: Partial<SlotResult>): SlotResult {
  return {
    acquireMs: new Float64Array(),
    cycleMs: new Float64Array(),
    attempts: 0,
    granted: 0,
    errors: 0,
    elapsedMs: 1_000,
    cpuMs: { server: 500, loadgen: 250 },
    firstError: null,
    ...overrides,
  };
}

describe("summarizeCell", () => {
  const cell = { variant: "sdk", concurrency: 16, keys: 10 } as const;

  it("pools rounds: rates over total time, percentiles over every sample", () => {
    const result = summarizeCell(cell, [
      slot({
        acquireMs: Float64Array.of(1, 2),
        cycleMs: Float64Array.of(2, 4),
        attempts: 2,
        granted: 2,
      }),
      slot({
        acquireMs: Float64Array.of(3, 4),
        cycleMs: Float64Array.of(6, 8),
        attempts: 3,
        granted: 1,
        errors: 1,
        firstError: "Error: boom",
      }),
    ]);
    expect(result).toMatchObject({
      ...cell,
      cyclesPerSec: 2.5,
      successRate: 0.6,
      acquireP50Ms: 2,
      acquireP99Ms: 4,
      cycleP99Ms: 8,
      cycles: 5,
      errors: 1,
      rounds: 2,
      firstError: "Error: boom",
    });
    expect(result.cpuPercent).toEqual({ server: 50, loadgen: 25 });
    expect(result.cpuUsPerCycle).toEqual({ server: 200_000, loadgen: 100_000 });
  });

  it("leaves out a process whose CPU a round could not read", () => {
    const result = summarizeCell(cell, [
      slot({ attempts: 1, cpuMs: { server: 10 } }),
      slot({ attempts: 1, cpuMs: { server: 10, loadgen: 5 } }),
    ]);
    expect(Object.keys(result.cpuPercent)).toEqual(["server"]);
  });

  it("reports an empty cell without dividing by zero", () => {
    const result = summarizeCell(cell, []);
    expect(result.cyclesPerSec).toBe(0);
    expect(result.successRate).toBe(0);
    expect(result.acquireP99Ms).toBeNaN();
  });
});
