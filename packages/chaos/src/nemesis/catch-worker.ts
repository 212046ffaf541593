import { readFileSync } from "node:fs";
import type { WorkerEvent } from "../log/events.js";
import type { WorkerSlot } from "../stack/worker-fleet.js";
import type { FaultContext } from "./fault-context.js";

/** How long the nemesis waits for its preferred worker before taking any. */
const PREFER_MS = 1_500;

/**
 * Waits for a worker line `ev` (from the schedule's preferred worker if it comes soon,
 * else from any) and runs `act` on it synchronously, inside the log listener: a worker
 * that logged `read` is then stopped within a millisecond, well inside its 30–60 ms
 * compute step.
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
