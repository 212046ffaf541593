import { STACK_SETTINGS } from "../../stack/stack-settings.js";
import { catchWorker, isStopped } from "../catch-worker.js";
import type { FaultContext } from "../fault-context.js";

/**
 * Issue item 1: a holder frozen with SIGSTOP right after its read, for longer than its
 * lease, then thawed. Its lease expires, another worker takes the account, and the late
 * write must come back `stale`.
 */
export async function pauseHolder(ctx: FaultContext): Promise<void> {
  const caught = await catchWorker(ctx, "read", (slot) => slot.child.signal("SIGSTOP"));
  ctx.start();
  if (!caught) {
    ctx.observe({ missed: "no worker read an account within 15 s" });
    ctx.heal();
    return;
  }
  const { slot, event } = caught;
  try {
    await ctx.sleep(20);
    ctx.observe({
      paused: { worker: slot.id, inc: slot.inc, lockId: event.lockId, account: event.account },
      stopped: isStopped(slot.child.pid),
    });
    await ctx.sleep(STACK_SETTINGS.leaseMs + ctx.param("beyondLeaseMs"));
  } finally {
    slot.child.signal("SIGCONT");
  }
  ctx.heal();
}
