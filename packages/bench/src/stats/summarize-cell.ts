import type { CellSpec } from "../plan/bench-plan.js";
import { percentile, sortedSamples } from "./percentile.js";
import { PROCESS_ROLES, type CpuByRole } from "./process-role.js";
import type { SlotResult } from "./slot-result.js";

/** One row of the result table: a cell over all its measured rounds. */
export interface CellResult extends CellSpec {
  /** Cycles started per second of slot time (granted, refused and failed alike). */
  readonly cyclesPerSec: number;
  /** Granted cycles / cycles, in [0, 1]. */
  readonly successRate: number;
  readonly acquireP50Ms: number;
  readonly acquireP99Ms: number;
  readonly acquireP999Ms: number;
  readonly cycleP99Ms: number;
  /** Cycles measured over all rounds. */
  readonly cycles: number;
  readonly errors: number;
  readonly rounds: number;
  /**
   * Mean CPU use of each process while the cell ran, in percent of one core (200 is both
   * cores of a 2-core box).
   */
  readonly cpuPercent: CpuByRole;
  /** CPU each process spent per cycle, in µs: what bounds a variant on a shared box. */
  readonly cpuUsPerCycle: CpuByRole;
  readonly firstError: string | null;
}

/** Pools a cell's rounds: rates over total time, percentiles over every sample. */
export function summarizeCell(cell: CellSpec, rounds: readonly SlotResult[]): CellResult {
  const attempts = sum(rounds.map((r) => r.attempts));
  const granted = sum(rounds.map((r) => r.granted));
  const elapsedMs = sum(rounds.map((r) => r.elapsedMs));
  const acquire = sortedSamples(rounds.map((r) => r.acquireMs));
  const cycle = sortedSamples(rounds.map((r) => r.cycleMs));
  const cpuPercent: CpuByRole = {};
  const cpuUsPerCycle: CpuByRole = {};
  for (const role of PROCESS_ROLES) {
    const spent = rounds.flatMap((r) => (r.cpuMs[role] === undefined ? [] : [r.cpuMs[role]]));
    // A process missing from any round (its pid unknown, or gone) is not reported at all.
    if (rounds.length === 0 || spent.length < rounds.length) continue;
    const totalMs = sum(spent);
    if (elapsedMs > 0) cpuPercent[role] = (totalMs / elapsedMs) * 100;
    if (attempts > 0) cpuUsPerCycle[role] = (totalMs * 1000) / attempts;
  }
  return {
    ...cell,
    cyclesPerSec: elapsedMs > 0 ? (attempts / elapsedMs) * 1000 : 0,
    successRate: attempts > 0 ? granted / attempts : 0,
    acquireP50Ms: percentile(acquire, 0.5),
    acquireP99Ms: percentile(acquire, 0.99),
    acquireP999Ms: percentile(acquire, 0.999),
    cycleP99Ms: percentile(cycle, 0.99),
    cycles: attempts,
    errors: sum(rounds.map((r) => r.errors)),
    rounds: rounds.length,
    cpuPercent,
    cpuUsPerCycle,
    firstError: rounds.find((r) => r.firstError !== null)?.firstError ?? null,
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
