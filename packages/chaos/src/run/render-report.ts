import type { ChaosReport, LeaderCounters, SemaphoreCounters } from "../checker/report.js";

const COLUMNS = [
  "fault",
  "accepted",
  "stale rejected",
  "stale accepted",
  "lost",
  "doubled",
  "fence regressions",
  "overlaps",
  "recovery ms",
  "hit",
] as const;

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.join(" | ")} |`;
}

const LEADER_COLUMNS = [
  "leader-elected writer",
  "accepted",
  "stale rejected",
  "stale accepted",
  "lost",
  "doubled",
  "term regressions",
  "leader overlaps",
] as const;

function leaderCells(name: string, c: LeaderCounters | undefined): (string | number)[] {
  if (!c) return [name, "", "", "", "", "", "", ""];
  return [
    name,
    c.acceptedWrites,
    c.staleRejected,
    c.staleAccepted,
    c.lost,
    c.doubled,
    c.termRegressions,
    c.overlaps,
  ];
}

/** The leader-elected writer's account per fault, when the run had one. */
function leaderTable(report: ChaosReport): string[] {
  if (!report.leader) return [];
  const { terms, leaders } = report.leader;
  return [
    "",
    row(LEADER_COLUMNS),
    row(LEADER_COLUMNS.map((_, i) => (i === 0 ? ":--" : "--:"))),
    row(leaderCells("(before the first fault)", report.baseline.leader)),
    ...report.faults.map((f) => row(leaderCells(f.name, f.leader))),
    row(leaderCells(`all (${terms} terms, ${leaders} leaders)`, report.leader)),
  ];
}

const SEMAPHORE_COLUMNS = [
  "semaphore slots",
  "accepted",
  "stale rejected",
  "stale accepted",
  "lost",
  "doubled",
  "fence regressions",
  "over permits (accepted)",
  "over permits (believed)",
] as const;

function semaphoreCells(name: string, c: SemaphoreCounters | undefined): (string | number)[] {
  if (!c) return [name, "", "", "", "", "", "", "", ""];
  return [
    name,
    c.acceptedWrites,
    c.staleRejected,
    c.staleAccepted,
    c.lost,
    c.doubled,
    c.fenceRegressions,
    c.overPermitsAccepted,
    c.overPermitsBeliefs,
  ];
}

/** The semaphore's slots per fault, when the run had them. */
function semaphoreTable(report: ChaosReport): string[] {
  if (!report.semaphore) return [];
  const { permits, maxAcceptedAtOnce, grants } = report.semaphore;
  return [
    "",
    row(SEMAPHORE_COLUMNS),
    row(SEMAPHORE_COLUMNS.map((_, i) => (i === 0 ? ":--" : "--:"))),
    row(semaphoreCells("(before the first fault)", report.baseline.semaphore)),
    ...report.faults.map((f) => row(semaphoreCells(f.name, f.semaphore))),
    row(
      semaphoreCells(
        `all (${grants} permits, at most ${maxAcceptedAtOnce} of ${permits} accepted at once)`,
        report.semaphore,
      ),
    ),
  ];
}

/** With `--wait-replicas`: what the resources asked and how many grants were undone. */
function replicaLines(report: ChaosReport): string[] {
  if (report.waitReplicas === 0) return [];
  const undone = Object.entries(report.undoneGrants)
    .map(([resource, n]) => `${resource} ${n}`)
    .join(", ");
  return [
    "",
    `Grants waited for ${report.waitReplicas} replica${report.waitReplicas === 1 ? "" : "s"}; undone for want of acknowledgements: ${undone || "none"}.`,
  ];
}

/** The report as Markdown: one line per fault, then the checks (for people and REPORT.md). */
export function renderReport(report: ChaosReport): string {
  const lines = [
    row(COLUMNS),
    row(COLUMNS.map((_, i) => (i === 0 ? ":--" : "--:"))),
    row([
      "(before the first fault)",
      report.baseline.acceptedWrites,
      report.baseline.staleRejected,
      report.baseline.staleAccepted,
      report.baseline.lost,
      report.baseline.doubled,
      report.baseline.fenceRegressions,
      report.baseline.unfencedOverlaps,
      "",
      "",
    ]),
    ...report.faults.map((f) =>
      row([
        f.name,
        f.acceptedWrites,
        f.staleRejected,
        f.staleAccepted,
        f.lost,
        f.doubled,
        f.fenceRegressions,
        f.unfencedOverlaps,
        f.recoveryMs ?? "never",
        f.hit ? "yes" : "NO",
      ]),
    ),
    ...leaderTable(report),
    ...semaphoreTable(report),
    ...replicaLines(report),
    "",
    ...report.checks.map((c) => `- ${c.ok ? "ok" : "**FAIL**"} ${c.name}: ${c.detail}`),
  ];
  return lines.join("\n");
}
