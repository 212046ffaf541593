import type { WorkerEvent } from "../log/events.js";
import type { AccountRow, LedgerRow } from "../ledger/ledger-types.js";
import { fenceRegressions } from "./fence-order.js";
import { auditLedger, type AccountAudit } from "./ledger-audit.js";
import type { HoldBelief } from "./overlaps.js";
import type { CheckLine, SemaphoreCounters, SemaphoreSummary } from "./report.js";
import type { SemaphoreFacts } from "./run-facts.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function zeroSemaphore(): Mutable<SemaphoreCounters> {
  return {
    acceptedWrites: 0,
    staleRejected: 0,
    staleAccepted: 0,
    lost: 0,
    doubled: 0,
    fenceRegressions: 0,
    overPermitsAccepted: 0,
    overPermitsBeliefs: 0,
  };
}

interface Interval {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  /** Monotonic ms to attribute it to a fault window. */
  readonly mono: number;
}

/**
 * Intervals that began while `permits` or more others were open (closed intervals: two
 * that touch overlap), and the most open at once.
 */
export function overPermits(
  intervals: readonly Interval[],
  permits: number,
): { max: number; over: { interval: Interval; open: Interval[] }[] } {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  const open: Interval[] = [];
  const over: { interval: Interval; open: Interval[] }[] = [];
  let max = 0;
  for (const interval of sorted) {
    for (let i = open.length - 1; i >= 0; i -= 1) {
      if (open[i]!.end < interval.start) open.splice(i, 1);
    }
    if (open.length >= permits) over.push({ interval, open: [...open] });
    open.push(interval);
    max = Math.max(max, open.length);
  }
  return { max, over };
}

/** What the semaphore's slots say, per bucket (baseline, then each fault). */
export interface SemaphoreJudgement {
  readonly buckets: SemaphoreCounters[];
  readonly summary: SemaphoreSummary;
  readonly checks: CheckLine[];
  readonly audits: AccountAudit[];
}

/**
 * Judges the semaphore's slots (decision 0172): each permit holder writes the slot with
 * the oldest claim, fenced by its permit, twice; the two slots together are the resource
 * the semaphore guards.
 * - no stale write accepted, no lost or doubled write: the ledger audit per slot;
 * - fences only grow: a permit asked for after another permit's grant arrived carries a
 *   larger fence (one counter per key, every permit);
 * - never more than `permits` holders accepted at once: each holder's accepted writes
 *   span an interval on the ledger database's clock (`db_time`, not the workers'); no
 *   instant may lie in more than `permits` of them;
 * - more than `permits` holders believing they hold a permit at once (a paused holder
 *   past its lease) is counted, not failed: the fences are what keep it harmless.
 */
export function judgeSemaphore(
  semaphore: SemaphoreFacts,
  accounts: readonly AccountRow[],
  ledger: readonly LedgerRow[],
  workers: readonly WorkerEvent[],
  beliefs: readonly HoldBelief[],
  bucketCount: number,
  bucketOf: (mono: number) => number,
): SemaphoreJudgement {
  const { key, slots, permits } = semaphore;
  const buckets = Array.from({ length: bucketCount }, zeroSemaphore);
  const at = (mono: number) => buckets[bucketOf(mono)]!;
  const isSlot = (account: string | undefined) => account !== undefined && slots.includes(account);
  const rows = ledger.filter((row) => isSlot(row.account));
  const lines = workers.filter((e) => isSlot(e.account) || e.account === key);
  for (const r of rows) at(r.mono).acceptedWrites += 1;
  for (const e of lines) {
    if ((e.ev === "write" || e.ev === "claimed") && e.outcome === "stale")
      at(e.mono).staleRejected += 1;
  }
  const audit = auditLedger(
    accounts.filter((a) => isSlot(a.id)),
    rows,
    lines.filter((e) => isSlot(e.account)),
  );
  for (const finding of audit.findings) {
    const bucket = at(finding.mono);
    if (finding.kind === "stale-accepted") bucket.staleAccepted += 1;
    else if (finding.kind === "lost") bucket.lost += 1;
    else bucket.doubled += 1;
  }
  const regressions = fenceRegressions(lines.filter((e) => e.account === key));
  for (const r of regressions) at(r.mono).fenceRegressions += 1;

  const byHolder = new Map<string, { start: number; end: number; mono: number }>();
  for (const r of rows) {
    const t = r.dbMs ?? r.mono;
    const seen = byHolder.get(r.lockId);
    if (!seen) byHolder.set(r.lockId, { start: t, end: t, mono: r.mono });
    else {
      seen.start = Math.min(seen.start, t);
      seen.end = Math.max(seen.end, t);
      seen.mono = Math.min(seen.mono, r.mono);
    }
  }
  const accepted = overPermits(
    [...byHolder].map(([id, i]) => ({ id, ...i })),
    permits,
  );
  for (const o of accepted.over) at(o.interval.mono).overPermitsAccepted += 1;
  const believed = overPermits(
    beliefs
      .filter((b) => b.account === key)
      .map((b) => ({ id: b.lockId, start: b.start, end: b.end, mono: b.start })),
    permits,
  );
  for (const o of believed.over) at(o.interval.mono).overPermitsBeliefs += 1;

  const total = buckets.reduce((sum, b) => {
    for (const k of Object.keys(sum) as (keyof SemaphoreCounters)[]) sum[k] += b[k];
    return sum;
  }, zeroSemaphore());
  const describe = (kinds: readonly string[]) =>
    audit.findings
      .filter((f) => kinds.includes(f.kind))
      .slice(0, 5)
      .map((f) => f.detail)
      .join("; ") || "none";
  const grants = lines.filter((e) => e.ev === "granted" && e.account === key).length;
  const summary: SemaphoreSummary = {
    key,
    slots: [...slots],
    permits,
    ...total,
    grants,
    holdersWithAcceptedWrites: byHolder.size,
    maxAcceptedAtOnce: accepted.max,
    maxBelievedAtOnce: believed.max,
  };
  const checks: CheckLine[] = [
    {
      name: "semaphore holders wrote",
      ok: total.acceptedWrites > 0,
      detail: `${grants} permits granted, ${byHolder.size} holders with accepted writes, ${total.acceptedWrites} accepted writes, ${total.staleRejected} stale rejected`,
    },
    {
      name: "semaphore: no stale write accepted",
      ok: total.staleAccepted === 0,
      detail: describe(["stale-accepted"]),
    },
    {
      name: "semaphore: no lost or doubled write",
      ok: total.lost === 0 && total.doubled === 0,
      detail: describe(["lost", "doubled"]),
    },
    {
      name: "semaphore: fences only grow",
      ok: regressions.length === 0,
      detail:
        regressions
          .slice(0, 3)
          .map((r) => `fence ${r.later.fence} granted after ${r.earlier.fence}`)
          .join("; ") || "none",
    },
    {
      name: `semaphore: never more than ${permits} holders accepted at once`,
      ok: accepted.over.length === 0,
      detail:
        accepted.over
          .slice(0, 3)
          .map(
            (o) =>
              `${o.interval.id} accepted while ${o.open.map((i) => i.id).join(", ")} were (ledger clock)`,
          )
          .join("; ") || `at most ${accepted.max} at once (ledger clock)`,
    },
  ];
  return { buckets, summary, checks, audits: audit.accounts };
}
