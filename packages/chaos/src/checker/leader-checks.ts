import type { WorkerEvent } from "../log/events.js";
import type { AccountRow, LedgerRow } from "../ledger/ledger-types.js";
import { fenceRegressions } from "./fence-order.js";
import { auditLedger, type AccountAudit } from "./ledger-audit.js";
import { findOverlaps, type HoldBelief } from "./overlaps.js";
import type { CheckLine, LeaderCounters, LeaderSummary } from "./report.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function zeroLeader(): Mutable<LeaderCounters> {
  return {
    acceptedWrites: 0,
    staleRejected: 0,
    staleAccepted: 0,
    lost: 0,
    doubled: 0,
    termRegressions: 0,
    overlaps: 0,
  };
}

/** What the leader-elected writer's account says, per bucket (baseline, then each fault). */
export interface LeaderJudgement {
  readonly buckets: LeaderCounters[];
  readonly summary: LeaderSummary;
  readonly checks: CheckLine[];
  readonly audit: AccountAudit | undefined;
}

/**
 * Judges the account only the elected leader writes, its term as the fence (decision 0172):
 * - no stale write accepted: in commit order the accepted terms never go down, and one
 *   term's writes all come from one lock (the ledger audit's rule);
 * - no lost or doubled write (the same audit as the mutex accounts);
 * - terms only grow: an election whose round began after another election was seen
 *   carries a larger term (the mutex's fence-order rule on `acquire`/`granted` lines);
 * - one leader's writes per term: the accepted rows of a term name one lock and worker;
 * - overlaps: two candidates that both believed they led at once — counted, not failed,
 *   like the mutex's (a paused leader is the zombie the term must make harmless);
 * - a superseded leader steps down: a term whose claim or write came back stale (a later
 *   term wrote) ends — `lost` or `release` — within `stepDownBoundMs` of that first
 *   refusal. Its lease cannot still be live at the store, since a later term was granted,
 *   so its watchdog must demote it; a leader that goes on believing (and renewing) with a
 *   superseded term never writes again and blocks every other candidate.
 * `bucketOf` maps a monotonic ms to 0 (baseline) or 1 + the fault window's index.
 */
export function judgeLeader(
  account: string,
  accounts: readonly AccountRow[],
  ledger: readonly LedgerRow[],
  workers: readonly WorkerEvent[],
  beliefs: readonly HoldBelief[],
  bucketCount: number,
  bucketOf: (mono: number) => number,
  stepDown: {
    readonly boundMs: number;
    readonly endMono: number;
    /** When a worker process ended (exit or kill), if it did. */
    readonly exitOf: (worker: string, inc: number) => number | undefined;
  },
): LeaderJudgement {
  const buckets = Array.from({ length: bucketCount }, zeroLeader);
  const at = (mono: number) => buckets[bucketOf(mono)]!;
  const rows = ledger.filter((row) => row.account === account);
  const lines = workers.filter((e) => e.account === account);
  const row = accounts.filter((a) => a.id === account);
  for (const r of rows) at(r.mono).acceptedWrites += 1;
  for (const e of lines) {
    if ((e.ev === "write" || e.ev === "claimed") && e.outcome === "stale")
      at(e.mono).staleRejected += 1;
  }
  const audit = auditLedger(row, rows, lines);
  for (const finding of audit.findings) {
    const bucket = at(finding.mono);
    if (finding.kind === "stale-accepted") bucket.staleAccepted += 1;
    else if (finding.kind === "lost") bucket.lost += 1;
    else bucket.doubled += 1;
  }
  const regressions = fenceRegressions(lines);
  for (const r of regressions) at(r.mono).termRegressions += 1;
  const overlaps = findOverlaps(beliefs.filter((b) => b.account === account));
  for (const o of overlaps) at(o.mono).overlaps += 1;

  const writersByTerm = new Map<string, Set<string>>();
  for (const r of rows) {
    const set = writersByTerm.get(r.fence) ?? new Set<string>();
    set.add(`${r.worker}/${r.lockId}`);
    writersByTerm.set(r.fence, set);
  }
  const shared = [...writersByTerm].filter(([, writers]) => writers.size > 1);
  const lingering = supersededLingering(lines, stepDown);
  const elections = lines.filter((e) => e.ev === "granted" && e.fence);
  const terms = new Set(elections.map((e) => e.fence));
  const total = buckets.reduce((sum, b) => {
    for (const key of Object.keys(sum) as (keyof LeaderCounters)[]) sum[key] += b[key];
    return sum;
  }, zeroLeader());
  const describe = (kinds: readonly string[]) =>
    audit.findings
      .filter((f) => kinds.includes(f.kind))
      .slice(0, 5)
      .map((f) => f.detail)
      .join("; ") || "none";
  const summary: LeaderSummary = {
    account,
    ...total,
    terms: terms.size,
    leaders: new Set(elections.map((e) => `${e.worker}#${e.inc}`)).size,
    termsWithSeveralWriters: shared.length,
  };
  const checks: CheckLine[] = [
    {
      name: "leader elected and wrote",
      ok: terms.size > 0 && total.acceptedWrites > 0,
      detail: `${terms.size} terms, ${summary.leaders} leader incarnations, ${total.acceptedWrites} accepted writes, ${total.staleRejected} stale rejected`,
    },
    {
      name: "leader: no stale write accepted",
      ok: total.staleAccepted === 0,
      detail: describe(["stale-accepted"]),
    },
    {
      name: "leader: no lost or doubled write",
      ok: total.lost === 0 && total.doubled === 0,
      detail: describe(["lost", "doubled"]),
    },
    {
      name: "leader: terms only grow",
      ok: regressions.length === 0,
      detail:
        regressions
          .slice(0, 3)
          .map((r) => `term ${r.later.fence} elected after term ${r.earlier.fence}`)
          .join("; ") || "none",
    },
    {
      name: "leader: one leader's writes per term",
      ok: shared.length === 0,
      detail:
        shared
          .slice(0, 3)
          .map(([term, writers]) => `term ${term} written by ${[...writers].join(", ")}`)
          .join("; ") || "none",
    },
    {
      name: "leader: a superseded leader steps down",
      ok: lingering.length === 0,
      detail:
        lingering
          .slice(0, 3)
          .map(
            (l) =>
              `${l.worker} led on with term ${l.fence} for ${l.lingeredMs === null ? "the rest of the run" : `${l.lingeredMs} ms`} after its first stale refusal (${l.refusals} refused)`,
          )
          .join("; ") || "none",
    },
  ];
  return { buckets, summary, checks, audit: audit.accounts[0] };
}

interface Lingering {
  readonly worker: string;
  readonly fence: string;
  /** From the first stale refusal to the term's end; null: it never ended. */
  readonly lingeredMs: number | null;
  readonly refusals: number;
}

/** Terms refused as stale that did not end within `boundMs` of their first refusal. */
function supersededLingering(
  lines: readonly WorkerEvent[],
  { boundMs, endMono, exitOf }: Parameters<typeof judgeLeader>[7],
): Lingering[] {
  const firstStale = new Map<string, { event: WorkerEvent; refusals: number }>();
  for (const e of lines) {
    if ((e.ev !== "write" && e.ev !== "claimed") || e.outcome !== "stale" || !e.lockId) continue;
    const seen = firstStale.get(e.lockId);
    if (seen) seen.refusals += 1;
    else firstStale.set(e.lockId, { event: e, refusals: 1 });
  }
  const found: Lingering[] = [];
  for (const [lockId, { event, refusals }] of firstStale) {
    // The term ends with its demotion (or resignation), or with its process.
    const ends = lines
      .filter(
        (e) =>
          (e.ev === "lost" || e.ev === "release") &&
          e.worker === event.worker &&
          e.inc === event.inc &&
          e.lockId === lockId,
      )
      .map((e) => e.mono);
    const exit = exitOf(event.worker, event.inc);
    if (exit !== undefined) ends.push(exit);
    const end = ends.length > 0 ? Math.min(...ends) : undefined;
    const lingeredMs = end === undefined ? null : Math.max(0, Math.round(end - event.mono));
    if (lingeredMs === null ? endMono - event.mono > boundMs : lingeredMs > boundMs) {
      found.push({ worker: event.worker, fence: event.fence ?? "?", lingeredMs, refusals });
    }
  }
  return found;
}
