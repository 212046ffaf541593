import type { ChaosEvent, WorkerEvent } from "../log/events.js";
import { faultWindows, windowOf } from "./fault-windows.js";
import { hitEvidence } from "./hit-evidence.js";
import { judgeLeader } from "./leader-checks.js";
import { judgeSemaphore } from "./semaphore-checks.js";
import { auditLedger } from "./ledger-audit.js";
import { fenceRegressions } from "./fence-order.js";
import { findOverlaps, holdBeliefs } from "./overlaps.js";
import { recoveryMs } from "./recovery.js";
import type { ChaosReport, CheckLine, FaultReport } from "./report.js";
import type { RunFacts } from "./run-facts.js";

type Counters = Omit<
  FaultReport,
  "name" | "recoveryMs" | "hit" | "evidence" | "leader" | "semaphore"
>;

function zero(): { -readonly [K in keyof Counters]: Counters[K] } {
  return {
    acceptedWrites: 0,
    staleRejected: 0,
    staleAccepted: 0,
    lost: 0,
    doubled: 0,
    fenceRegressions: 0,
    unfencedOverlaps: 0,
  };
}

function line(name: string, ok: boolean, detail: string): CheckLine {
  return { name, ok, detail };
}

/**
 * Judges a run from its event log and final databases only. Counters are attributed to the
 * fault whose window (injection → next injection) contains them, or to the baseline.
 */
export function checkRun(allEvents: readonly ChaosEvent[], facts: RunFacts): ChaosReport {
  const events = [...allEvents].sort((a, b) => a.mono - b.mono);
  const windows = faultWindows(events, facts.endMono);
  const allWorkers = events.filter((e): e is WorkerEvent => e.src === "worker");
  // The leader-elected writer's account and the semaphore's slots are judged by their own
  // rules (leader-checks.ts, semaphore-checks.ts); the rest here is the mutex accounts.
  const leaderAccount = facts.leaderAccount;
  const semaphore = facts.semaphore;
  const isCoordination = (account: string | undefined) =>
    account !== undefined &&
    (account === leaderAccount ||
      account === semaphore?.key ||
      (semaphore?.slots.includes(account) ?? false));
  const workers = allWorkers.filter((e) => !isCoordination(e.account));
  const ledger = facts.ledger.filter((row) => !isCoordination(row.account));
  const mutexAccounts = facts.accounts.filter((a) => !isCoordination(a.id));
  const counters = [zero(), ...windows.map(zero)];
  const bucketOf = (mono: number) => windowOf(windows, mono) + 1;
  const at = (mono: number) => counters[bucketOf(mono)]!;

  for (const row of ledger) at(row.mono).acceptedWrites += 1;
  for (const e of workers) {
    if ((e.ev === "write" || e.ev === "claimed") && e.outcome === "stale")
      at(e.mono).staleRejected += 1;
  }
  const audit = auditLedger(mutexAccounts, ledger, workers);
  for (const finding of audit.findings) {
    const bucket = at(finding.mono);
    if (finding.kind === "stale-accepted") bucket.staleAccepted += 1;
    else if (finding.kind === "lost") bucket.lost += 1;
    else bucket.doubled += 1;
  }
  const regressions = fenceRegressions(workers);
  for (const regression of regressions) at(regression.mono).fenceRegressions += 1;
  const beliefs = holdBeliefs(events, facts.endMono);
  for (const overlap of findOverlaps(beliefs.filter((b) => !isCoordination(b.account)))) {
    at(overlap.mono).unfencedOverlaps += 1;
  }
  const processExits = new Map<string, number>();
  for (const e of events) {
    if (e.src === "orchestrator" && e.ev === "process-exit" && e.role === "worker")
      processExits.set(`${e.id}#${e.inc ?? 0}`, e.mono);
  }
  const leader =
    leaderAccount === undefined
      ? null
      : judgeLeader(
          leaderAccount,
          facts.accounts,
          facts.ledger,
          allWorkers,
          beliefs,
          counters.length,
          bucketOf,
          {
            boundMs: facts.recoveryBoundMs,
            endMono: facts.endMono,
            exitOf: (worker, inc) => processExits.get(`${worker}#${inc}`),
          },
        );
  const slots =
    semaphore === undefined
      ? null
      : judgeSemaphore(
          semaphore,
          facts.accounts,
          facts.ledger,
          allWorkers,
          beliefs,
          counters.length,
          bucketOf,
        );

  const accountIds = facts.accounts.map((a) => a.id);
  const faults: FaultReport[] = windows.map((w, i) => ({
    name: w.name,
    ...counters[i + 1]!,
    ...(leader ? { leader: leader.buckets[i + 1]! } : {}),
    ...(slots ? { semaphore: slots.buckets[i + 1]! } : {}),
    recoveryMs: w.heal === null ? null : recoveryMs(w.heal, events, facts.ledger, accountIds),
    ...hitEvidence(w, events, facts.ledger, facts.serverInstances ?? 2),
  }));

  const all = counters.reduce((sum, c) => {
    for (const key of Object.keys(sum) as (keyof Counters)[]) sum[key] += c[key];
    return sum;
  }, zero());
  const findings = (kind: string) => audit.findings.filter((f) => f.kind === kind);
  const describe = (kind: string) =>
    findings(kind)
      .slice(0, 5)
      .map((f) => f.detail)
      .join("; ") || "none";
  const slow = faults.filter((f) => f.recoveryMs === null || f.recoveryMs > facts.recoveryBoundMs);
  const missed = faults.filter((f) => !f.hit);
  const audits = [
    ...audit.accounts,
    ...(leader?.audit ? [leader.audit] : []),
    ...(slots?.audits ?? []),
  ];
  const unbalanced = audits.filter((a) => a.final !== a.expected);
  const checks: CheckLine[] = [
    line(
      "enough accepted writes",
      all.acceptedWrites >= facts.minAcceptedWrites,
      `${all.acceptedWrites} accepted (a run needs ${facts.minAcceptedWrites})`,
    ),
    line(
      "faults ran and healed",
      windows.length > 0 && windows.every((w) => w.heal !== null),
      `${windows.length} faults`,
    ),
    line("no stale write accepted", all.staleAccepted === 0, describe("stale-accepted")),
    line("no lost update", all.lost === 0, describe("lost")),
    line("no doubled update", all.doubled === 0, describe("doubled")),
    line(
      "fences only grow per account",
      regressions.length === 0,
      regressions
        .slice(0, 3)
        .map((r) => `${r.account}: fence ${r.later.fence} granted after ${r.earlier.fence}`)
        .join("; ") || "none",
    ),
    line(
      "final balance = initial + accepted writes",
      unbalanced.length === 0,
      audits.map((a) => `${a.account}: ${a.final} vs ${a.expected} (${a.rows} writes)`).join("; "),
    ),
    line(
      `recovery within ${facts.recoveryBoundMs} ms`,
      slow.length === 0,
      slow
        .map(
          (f) =>
            `${f.name}: ${f.recoveryMs ?? "never"} ms (${f.fenceRegressions} fence regressions in its window)`,
        )
        .join("; ") || "all",
    ),
    line(
      "every fault hit",
      missed.length === 0,
      missed.map((f) => `${f.name}: ${f.evidence}`).join("; ") || "all",
    ),
    line(
      "no stuck locks",
      facts.stuckLocks.length === 0,
      facts.stuckLocks.map((s) => `${s.account} by ${s.holder}`).join("; ") || "none",
    ),
    ...(leader?.checks ?? []),
    ...(slots?.checks ?? []),
    line(
      "every process stopped",
      facts.processes.stillRunning.length === 0,
      `${facts.processes.started} started; still running: ${facts.processes.stillRunning.map((p) => `${p.role} ${p.id} (${p.pid})`).join(", ") || "none"}`,
    ),
  ];
  return {
    seed: facts.seed,
    mode: facts.mode,
    guard: facts.guard,
    redis: facts.redis ?? "sentinel",
    serverInstances: facts.serverInstances ?? 2,
    waitReplicas: facts.waitReplicas ?? 0,
    undoneGrants: facts.undoneGrants ?? {},
    faults,
    baseline: {
      ...counters[0]!,
      ...(leader ? { leader: leader.buckets[0]! } : {}),
      ...(slots ? { semaphore: slots.buckets[0]! } : {}),
    },
    totals: {
      acceptedWrites: all.acceptedWrites,
      staleRejected: all.staleRejected,
      fenceRegressions: all.fenceRegressions,
      unfencedOverlaps: all.unfencedOverlaps,
      recoveryBoundMs: facts.recoveryBoundMs,
    },
    ...(leader ? { leader: leader.summary } : {}),
    ...(slots ? { semaphore: slots.summary } : {}),
    checks,
    ok: checks.every((c) => c.ok),
  };
}
