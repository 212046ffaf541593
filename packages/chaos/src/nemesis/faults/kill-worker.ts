import { catchWorker } from "../catch-worker.js";
import type { FaultContext } from "../fault-context.js";

/**
 * Issue item 7: kill -9 a worker the moment it is granted a lock. Nothing releases that
 * lock; the account must come back to the others when the lease ends. The worker then
 * restarts as a new incarnation (a fresh SDK client).
 */
export async function killWorkerHolding(ctx: FaultContext): Promise<void> {
  const caught = await catchWorker(ctx, "granted", (slot) => slot.child.killSync());
  ctx.start();
  if (!caught) {
    ctx.observe({ missed: "no worker was granted a lock within 15 s" });
    ctx.heal();
    return;
  }
  const { slot, event } = caught;
  const exit = await slot.child.exited;
  ctx.observe({
    killed: { worker: slot.id, inc: slot.inc, lockId: event.lockId, account: event.account },
    exit,
  });
  ctx.heal();
  await ctx.stack.fleet.restart(slot.index);
}
