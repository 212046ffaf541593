import { performance } from "node:perf_hooks";
import { SampleBuffer } from "../stats/sample-buffer.js";
import type { SlotResult } from "../stats/slot-result.js";
import type { Variant } from "../variants/variant.js";
import { randomKey } from "./key-space.js";

/** What {@link runCell} drives. */
export interface CellRun {
  readonly variant: Variant;
  /** Cycles in flight at once. */
  readonly concurrency: number;
  /** Key-space size the cycles pick from. */
  readonly keys: number;
  /** How long new cycles are started, in ms; cycles in flight then finish. */
  readonly durationMs: number;
}

/**
 * Runs `concurrency` closed loops of lock cycles — a random key, acquire without waiting,
 * then release if granted — for `durationMs`. Latencies come from `performance.now()`.
 * A cycle that throws counts as an attempt and an error and its latency is dropped;
 * the loop goes on, so one bad reply cannot end a slot early.
 */
export async function runCell(run: CellRun): Promise<Omit<SlotResult, "cpuMs">> {
  const acquireMs = new SampleBuffer();
  const cycleMs = new SampleBuffer();
  let attempts = 0;
  let granted = 0;
  let errors = 0;
  let firstError: string | null = null;
  const started = performance.now();
  const deadline = started + run.durationMs;

  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const key = randomKey(run.keys);
      attempts += 1;
      const t0 = performance.now();
      try {
        const held = await run.variant.tryAcquire(key);
        acquireMs.push(performance.now() - t0);
        if (held) {
          granted += 1;
          await held.finish();
        }
        cycleMs.push(performance.now() - t0);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: run.concurrency }, loop));
  return {
    acquireMs: acquireMs.toArray(),
    cycleMs: cycleMs.toArray(),
    attempts,
    granted,
    errors,
    elapsedMs: performance.now() - started,
    firstError,
  };
}
