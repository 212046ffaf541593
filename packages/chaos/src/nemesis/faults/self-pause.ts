import type { WorkerEvent } from "../../log/events.js";
import { STACK_SETTINGS } from "../../stack/stack-settings.js";
import { isStopped, onNextReader } from "../catch-worker.js";
import type { FaultContext } from "../fault-context.js";

/**
 * Issue item 7, the sharpest case: a worker stops itself (SIGSTOP) right after reading
 * the account, and is thawed exactly when the next holder has read the same account and
 * is computing. Its write then lands between the new holder's read and write: a fence-only
 * check lets both through (an update is lost), the read-modify-write guard says `stale`.
 */
export async function selfPauseAfterRead(ctx: FaultContext): Promise<void> {
  const { fleet, events } = ctx.stack;
  const slot = fleet.slot(ctx.param("worker"));
  const inc = slot.inc;
  slot.child.send({ type: "pause-after-read" });
  const paused = await events.waitFor(
    (e): e is WorkerEvent =>
      e.src === "worker" && e.ev === "self-pause" && e.worker === slot.id && e.inc === inc,
    10_000,
    ctx.signal,
  );
  ctx.start();
  if (!paused?.account || !paused.lockId) {
    ctx.observe({ missed: `${slot.id} did not pause itself within 10 s` });
    ctx.heal();
    return;
  }
  let resumed = false;
  const resume = (): void => {
    resumed = true;
    slot.child.signal("SIGCONT");
  };
  try {
    await ctx.sleep(20);
    ctx.observe({
      paused: { worker: slot.id, inc, lockId: paused.lockId, account: paused.account },
      stopped: isStopped(slot.child.pid),
    });
    const reader = await onNextReader(
      ctx,
      paused.account,
      paused.lockId,
      resume,
      STACK_SETTINGS.leaseMs + 10_000,
    );
    ctx.observe({
      resumedWhileReading: reader ? { worker: reader.worker, lockId: reader.lockId } : null,
    });
  } finally {
    if (!resumed) resume();
  }
  ctx.heal();
}
