import { setTimeout as sleep } from "node:timers/promises";
import { monoNow } from "../log/clock.js";
import type { Schedule } from "../schedule/build-schedule.js";
import { needsRedisTier } from "../schedule/fault-kinds.js";
import type { Stack } from "../stack/start-stack.js";
import { Activity } from "./activity.js";
import { FaultContext } from "./fault-context.js";
import { FAULTS } from "./faults/index.js";
import { waitHealthy } from "./wait-healthy.js";

/** Longest wait for the service to be whole after a fault: hold-down 10 s plus slack. */
const HEALTHY_TIMEOUT_MS = 30_000;
/** Before a fault, every worker and account must have been served this recently. */
const READY_WINDOW_MS = 3_000;

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
    await waitHealthy(stack, activity, warmStart, true, HEALTHY_TIMEOUT_MS, signal);
    for (const [i, step] of schedule.steps.entries()) {
      if (signal.aborted) return;
      const ctx = new FaultContext(stack, step, signal);
      const unready = await waitHealthy(
        stack,
        activity,
        monoNow() - READY_WINDOW_MS,
        needsRedisTier(step.kind),
        HEALTHY_TIMEOUT_MS,
        signal,
      );
      phase(
        `fault ${step.index + 1}/${schedule.steps.length}: ${step.name}${unready.length ? ` (started unready: ${unready.join(", ")})` : ""}`,
      );
      try {
        await FAULTS[step.kind](ctx);
      } catch (error) {
        ctx.observe({ error: (error as Error).message });
      }
      const healed = ctx.healMono ?? monoNow();
      const next = schedule.steps[i + 1];
      const missing = await waitHealthy(
        stack,
        activity,
        healed,
        next ? needsRedisTier(next.kind) : true,
        HEALTHY_TIMEOUT_MS,
        signal,
      );
      if (missing.length > 0) ctx.observe({ unhealthyAfter: missing });
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
