import type { CellResult } from "../../src/stats/summarize-cell.js";

/** A plausible result row; override what a test is about. */
export function cell(overrides: Partial<CellResult> = {}): CellResult {
  return {
    variant: "raw-ioredis",
    concurrency: 16,
    keys: 10_000,
    cyclesPerSec: 1_000,
    successRate: 0.995,
    acquireP50Ms: 0.5,
    acquireP99Ms: 2,
    acquireP999Ms: 4,
    cycleP99Ms: 3,
    cycles: 3_000,
    errors: 0,
    rounds: 3,
    cpuPercent: { loadgen: 90, server: 80, redis: 20 },
    cpuUsPerCycle: { loadgen: 300, server: 1_200, redis: 50 },
    firstError: null,
    ...overrides,
  };
}
