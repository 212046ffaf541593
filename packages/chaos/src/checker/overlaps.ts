import type { ChaosEvent, WorkerEvent } from "../log/events.js";

/** While one worker believed it held one account: from the grant to release, loss or death. */
export interface HoldBelief {
  readonly worker: string;
  readonly lockId: string;
  readonly account: string;
  readonly fence: string | null;
  readonly start: number;
  readonly end: number;
}

/** Two beliefs of one account that overlapped in time; `mono` is when the second began. */
export interface Overlap {
  readonly account: string;
  readonly mono: number;
  readonly first: HoldBelief;
  readonly second: HoldBelief;
}

function incarnationKey(worker: string, inc: number | undefined): string {
  return `${worker}#${inc ?? 0}`;
}

/**
 * The hold beliefs of every worker. A belief ends at the first of: the worker's `release`
 * line, its `lost` line (the SDK aborted lock.signal), the death of its process, or the
 * end of the run. A paused worker logs nothing, so its belief spans the pause: exactly
 * the zombie a fence must make harmless.
 */
export function holdBeliefs(events: readonly ChaosEvent[], endMono: number): HoldBelief[] {
  const deaths = new Map<string, number>();
  for (const e of events) {
    if (e.src === "orchestrator" && e.ev === "process-exit" && e.role === "worker" && e.id) {
      deaths.set(incarnationKey(e.id, e.inc), e.mono);
    }
  }
  const open = new Map<string, { event: WorkerEvent; end: number }>();
  for (const e of events) {
    if (e.src !== "worker" || !e.lockId) continue;
    if (e.ev === "granted") {
      const death = deaths.get(incarnationKey(e.worker, e.inc)) ?? endMono;
      open.set(e.lockId, { event: e, end: death });
    } else if (e.ev === "release" || e.ev === "lost") {
      const held = open.get(e.lockId);
      if (held) held.end = Math.min(held.end, e.mono);
    }
  }
  return [...open.values()].map(({ event, end }) => ({
    worker: event.worker,
    lockId: event.lockId!,
    account: event.account ?? "?",
    fence: event.fence ?? null,
    start: event.mono,
    end,
  }));
}

/**
 * Pairs of beliefs of one account by different locks that overlapped: two workers that
 * both thought they held the account at the same instant. Harmless only because of the
 * fence; the checker reports them per fault and fails on none of them.
 */
export function findOverlaps(beliefs: readonly HoldBelief[]): Overlap[] {
  const overlaps: Overlap[] = [];
  const byAccount = new Map<string, HoldBelief[]>();
  for (const belief of beliefs) {
    const list = byAccount.get(belief.account) ?? [];
    list.push(belief);
    byAccount.set(belief.account, list);
  }
  for (const [account, list] of byAccount) {
    list.sort((a, b) => a.start - b.start);
    const active: HoldBelief[] = [];
    for (const belief of list) {
      for (let i = active.length - 1; i >= 0; i -= 1) {
        if (active[i]!.end <= belief.start) active.splice(i, 1);
      }
      for (const earlier of active) {
        if (earlier.lockId !== belief.lockId) {
          overlaps.push({ account, mono: belief.start, first: earlier, second: belief });
        }
      }
      active.push(belief);
    }
  }
  return overlaps;
}
