import { STACK_SETTINGS } from "../../stack/stack-settings.js";
import { isStopped, onNextReader, pauseAfterNextRead } from "../catch-worker.js";
import type { FaultContext } from "../fault-context.js";

/**
 * Issue item 7, the sharpest case: a worker stops itself (SIGSTOP) right after reading
 * the account, and is thawed exactly when the next holder has read the same account and
 * is computing. Its write then lands between the new holder's read and write: a fence-only
 * check lets both through (an update is lost), the read-modify-write guard says `stale`.
 */
export async function selfPauseAfterRead(ctx: FaultContext): Promise<void> {
  const caught = await pauseAfterNextRead(ctx);
  ctx.start();
  if (!caught) {
    const worker = ctx.stack.fleet.slot(ctx.param("worker")).id;
    ctx.observe({ missed: `${worker} did not pause itself within 10 s` });
    ctx.heal();
    return;
  }
  const { slot, account, lockId } = caught;
  const inc = slot.inc;
  let resumed = false;
  const resume = (): void => {
    resumed = true;
    slot.child.signal("SIGCONT");
  };
  try {
    await ctx.sleep(20);
    ctx.observe({
      paused: { worker: slot.id, inc, lockId, account },
      stopped: isStopped(slot.child.pid),
    });
    const reader = await onNextReader(
      ctx,
      account,
      lockId,
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
