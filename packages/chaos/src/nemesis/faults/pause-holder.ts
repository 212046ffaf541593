import type { WorkerEvent } from "../../log/events.js";
import { STACK_SETTINGS } from "../../stack/stack-settings.js";
import type { WorkerSlot } from "../../stack/worker-fleet.js";
import { isStopped, pauseAfterNextRead } from "../catch-worker.js";
import type { FaultContext } from "../fault-context.js";

/** How long the fault waits for the elected leader's next read (it writes several times a second). */
const LEADER_READ_WITHIN_MS = 3_000;

/**
 * Stops the elected leader with SIGSTOP right after its next read of the leader account,
 * unless the holder already paused is the leader. Its lease lapses, another candidate is
 * elected with a larger term and writes; the old leader's late write must come back stale.
 */
async function pauseLeader(
  ctx: FaultContext,
  already: WorkerSlot,
): Promise<{ slot: WorkerSlot; event: WorkerEvent } | null> {
  if (already.role === "leader") return null;
  const { fleet, events } = ctx.stack;
  let caught: { slot: WorkerSlot; event: WorkerEvent } | null = null;
  await events.waitFor(
    (e) => {
      if (e.src !== "worker" || e.ev !== "read" || !e.lockId) return false;
      if (e.account !== STACK_SETTINGS.leaderAccount) return false;
      const slot = fleet.byId(e.worker);
      if (!slot || slot.inc !== e.inc || !slot.child.running) return false;
      slot.child.signal("SIGSTOP");
      caught = { slot, event: e };
      return true;
    },
    LEADER_READ_WITHIN_MS,
    ctx.signal,
  );
  return caught;
}

/**
 * Issue item 1: a holder frozen with SIGSTOP right after its read (it stops itself: see
 * {@link pauseAfterNextRead}), for longer than its lease, then thawed. Its lease expires, another worker takes the account, and the late
 * write must come back `stale`. The elected leader is frozen the same way alongside
 * (decision 0172): its term must not let its late write land after the next leader's.
 */
export async function pauseHolder(ctx: FaultContext): Promise<void> {
  const caught = await pauseAfterNextRead(ctx);
  ctx.start();
  if (!caught) {
    const worker = ctx.stack.fleet.slot(ctx.param("worker")).id;
    ctx.observe({ missed: `${worker} did not pause itself within 10 s` });
    ctx.heal();
    return;
  }
  const { slot, account, lockId } = caught;
  let leader: { slot: WorkerSlot; event: WorkerEvent } | null = null;
  try {
    leader = await pauseLeader(ctx, slot);
    await ctx.sleep(20);
    ctx.observe({
      paused: { worker: slot.id, inc: slot.inc, lockId, account },
      stopped: isStopped(slot.child.pid),
      ...(leader
        ? {
            pausedLeader: {
              worker: leader.slot.id,
              inc: leader.slot.inc,
              lockId: leader.event.lockId,
            },
          }
        : {}),
    });
    await ctx.sleep(STACK_SETTINGS.leaseMs + ctx.param("beyondLeaseMs"));
  } finally {
    slot.child.signal("SIGCONT");
    leader?.slot.child.signal("SIGCONT");
  }
  ctx.heal();
}
