import type { CpuByRole } from "./process-role.js";

/** What one slot (one cell for one round) measured. */
export interface SlotResult {
  /** Acquire latency of every cycle that got an answer (granted or refused), in ms. */
  readonly acquireMs: Float64Array;
  /** Whole-cycle latency (acquire, work if any, release if granted), in ms. */
  readonly cycleMs: Float64Array;
  /** Cycles started, including those that failed. */
  readonly attempts: number;
  /** Cycles whose acquire was granted. */
  readonly granted: number;
  /** Cycles that threw (timeouts, driver errors); their latencies are not recorded. */
  readonly errors: number;
  /** From the first cycle's start to the last cycle's end, in ms. */
  readonly elapsedMs: number;
  /** CPU each process used during the slot, in ms. */
  readonly cpuMs: CpuByRole;
  /** The first error's message, to print when a cell fails. */
  readonly firstError: string | null;
}
