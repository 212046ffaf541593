import type { ChaosReport } from "../checker/report.js";

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
    "",
    ...report.checks.map((c) => `- ${c.ok ? "ok" : "**FAIL**"} ${c.name}: ${c.detail}`),
  ];
  return lines.join("\n");
}
