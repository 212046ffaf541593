import { readFileSync } from "node:fs";
import type { WorkerEvent } from "../log/events.js";
import type { WorkerSlot } from "../stack/worker-fleet.js";
import type { FaultContext } from "./fault-context.js";

/** How long the nemesis waits for its preferred worker before taking any. */
const PREFER_MS = 1_500;

/**
 * Waits for a worker line `ev` (from the schedule's preferred worker if it comes soon,
 * else from any) and runs `act` on it synchronously, inside the log listener. The line
 * reaches the listener through the worker's pipe and the orchestrator's event loop, so on
 * a loaded box the act may come a hundred milliseconds after the line was written: fine
 * for a kill after `granted`, too late to stop a holder inside its compute step (use
 * {@link pauseAfterNextRead} for that).
 */
export async function catchWorker(
  ctx: FaultContext,
  ev: WorkerEvent["ev"],
  act: (slot: WorkerSlot, event: WorkerEvent) => void,
  timeoutMs = 15_000,
): Promise<{ slot: WorkerSlot; event: WorkerEvent } | null> {
  const { fleet, events } = ctx.stack;
  const preferred = fleet.slot(ctx.param("worker"));
  const since = performance.now();
  let caught: { slot: WorkerSlot; event: WorkerEvent } | null = null;
  await events.waitFor(
    (e) => {
      if (e.src !== "worker" || e.ev !== ev || !e.lockId) return false;
      const slot = fleet.byId(e.worker);
      if (!slot || slot.inc !== e.inc || !slot.child.running) return false;
      if (slot !== preferred && performance.now() - since < PREFER_MS) return false;
      act(slot, e);
      caught = { slot, event: e };
      return true;
    },
    timeoutMs,
    ctx.signal,
  );
  return caught;
}

/**
 * Asks the schedule's worker (`worker` param) to stop itself with SIGSTOP right after its next
 * read of an account, and waits up to `timeoutMs` for its `self-pause` line. The worker stops
 * before anything of its write has run. A SIGSTOP sent from the log listener instead
 * ({@link catchWorker}) can arrive late on a loaded box: after the write's UPDATE took the
 * account row's lock and before its COMMIT, so the frozen holder blocks the next holder's
 * claim until it is thawed, and its write then commits (a fault that did not hit).
 */
export async function pauseAfterNextRead(
  ctx: FaultContext,
  timeoutMs = 10_000,
): Promise<{ slot: WorkerSlot; account: string; lockId: string } | null> {
  const { fleet, events } = ctx.stack;
  const slot = fleet.slot(ctx.param("worker"));
  const inc = slot.inc;
  slot.child.send({ type: "pause-after-read" });
  const paused = await events.waitFor(
    (e): e is WorkerEvent =>
      e.src === "worker" && e.ev === "self-pause" && e.worker === slot.id && e.inc === inc,
    timeoutMs,
    ctx.signal,
  );
  return paused?.account && paused.lockId
    ? { slot, account: paused.account, lockId: paused.lockId }
    : null;
}

/** Whether `pid` is stopped (state T in /proc), i.e. a SIGSTOP has taken effect. */
export function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
  } catch {
    return false;
  }
}

/**
 * Waits until another lock's holder of `account` has read it (and, with the rmw guard,
 * claimed it first) and runs `act` right then: the old holder resumes while the new one
 * is between its read and its write — the interleaving that loses an update when only the
 * fence is checked.
 */
export async function onNextReader(
  ctx: FaultContext,
  account: string,
  notLockId: string,
  act: () => void,
  timeoutMs: number,
): Promise<WorkerEvent | null> {
  const found = await ctx.stack.events.waitFor(
    (e): e is WorkerEvent => {
      if (e.src !== "worker" || e.ev !== "read" || e.account !== account || e.lockId === notLockId)
        return false;
      act();
      return true;
    },
    timeoutMs,
    ctx.signal,
  );
  return found;
}
