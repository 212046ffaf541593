import { setTimeout as sleep } from "node:timers/promises";
import { monoNow } from "../log/clock.js";
import type { Schedule } from "../schedule/build-schedule.js";
import { needsRedisTier } from "../schedule/fault-kinds.js";
import type { Stack } from "../stack/start-stack.js";
import { Activity } from "./activity.js";
import { FaultContext } from "./fault-context.js";
import { FAULTS } from "./faults/index.js";
import { waitHealthy } from "./wait-healthy.js";

/**
 * Waits, in ms. Recovery must come within the checker's 5.5 s bound, so 15 s is ample;
 * once the service failed to recover, 8 s (the run is failing anyway: keep it short). The
 * tier returns to Redis after a 10 s hold-down plus probes.
 */
const SERVED_TIMEOUT_MS = 15_000;
const SERVED_AGAIN_TIMEOUT_MS = 8_000;
const TIER_TIMEOUT_MS = 30_000;
/** Before a fault, every worker and account must have been served this recently. */
const READY_WINDOW_MS = 3_000;
const READY_TIMEOUT_MS = 10_000;

/**
 * Runs the schedule one fault at a time: wait until the service is whole (and on tier
 * redis if the fault needs it), inject, heal, wait until whole again, keep a healthy gap.
 * A fault that throws is recorded and the run goes on: the checker then fails it as not
 * hit or not healed.
 */
export async function runNemesis(
  stack: Stack,
  schedule: Schedule,
  signal: AbortSignal,
): Promise<void> {
  const activity = new Activity(stack.events);
  const phase = (name: string) =>
    stack.events.record({ src: "orchestrator", ev: "phase", phase: name });
  try {
    phase("warmup");
    const warmStart = monoNow();
    await sleep(schedule.warmupMs, undefined, { signal }).catch(() => undefined);
    const cold = { servedSince: warmStart, redisTier: true, timeoutMs: TIER_TIMEOUT_MS };
    let whole = (await waitHealthy(stack, activity, cold, signal)).length === 0;
    for (const [i, step] of schedule.steps.entries()) {
      if (signal.aborted) return;
      const ctx = new FaultContext(stack, step, signal);
      // A service that did not recover from the last fault is not waited for again.
      const ready = {
        servedSince: whole ? monoNow() - READY_WINDOW_MS : null,
        redisTier: needsRedisTier(step.kind),
        timeoutMs: needsRedisTier(step.kind) ? TIER_TIMEOUT_MS : READY_TIMEOUT_MS,
      };
      const unready = await waitHealthy(stack, activity, ready, signal);
      const note = unready.length > 0 ? ` (started unready: ${unready.join(", ")})` : "";
      phase(`fault ${step.index + 1}/${schedule.steps.length}: ${step.name}${note}`);
      try {
        await FAULTS[step.kind](ctx);
      } catch (error) {
        ctx.observe({ error: (error as Error).message });
      }
      const healed = ctx.healMono ?? monoNow();
      const served = {
        servedSince: healed,
        redisTier: false,
        timeoutMs: whole ? SERVED_TIMEOUT_MS : SERVED_AGAIN_TIMEOUT_MS,
      };
      const missing = await waitHealthy(stack, activity, served, signal);
      whole = missing.length === 0;
      if (!whole) ctx.observe({ unhealthyAfter: missing });
      const next = schedule.steps[i + 1];
      if (!next || needsRedisTier(next.kind)) {
        await waitHealthy(
          stack,
          activity,
          { servedSince: null, redisTier: true, timeoutMs: TIER_TIMEOUT_MS },
          signal,
        );
      }
      await sleep(step.gapMs, undefined, { signal }).catch(() => undefined);
      stack.events.record({
        src: "nemesis",
        ev: "fault-end",
        fault: step.name,
        kind: step.kind,
        index: step.index,
      });
    }
    phase("cool-down");
  } finally {
    activity.stop();
  }
}
