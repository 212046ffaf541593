import type { CellResult } from "../stats/summarize-cell.js";
import { formatMs, formatRate, formatShare } from "./format-number.js";
import { markdownTable, type Align } from "./markdown-table.js";

const HEADERS = [
  "variant",
  "conc",
  "keys",
  "cycles/s",
  "granted",
  "acq p50",
  "acq p99",
  "acq p99.9",
  "cycle p99",
  "cpu loadgen",
  "cpu server",
  "cpu redis",
  "cpu mysql",
  "errors",
] as const;

const ALIGN: Align[] = HEADERS.map((_, column) => (column === 0 ? "left" : "right"));

function cpu(percent: number | undefined): string {
  return percent === undefined ? "–" : `${Math.round(percent)}%`;
}

/**
 * The result table: one row per cell in the given order; latencies in ms, CPU in percent
 * of one core averaged over the cell's measured time.
 */
export function resultsTable(results: readonly CellResult[]): string {
  const rows = results.map((r) => [
    r.variant,
    String(r.concurrency),
    formatRate(r.keys),
    formatRate(r.cyclesPerSec),
    formatShare(r.successRate),
    formatMs(r.acquireP50Ms),
    formatMs(r.acquireP99Ms),
    formatMs(r.acquireP999Ms),
    formatMs(r.cycleP99Ms),
    cpu(r.cpuPercent.loadgen),
    cpu(r.cpuPercent.server),
    cpu(r.cpuPercent.redis),
    cpu(r.cpuPercent.mysql),
    String(r.errors),
  ]);
  return markdownTable(HEADERS, rows, ALIGN);
}

const COST_HEADERS = [
  "variant",
  "conc",
  "keys",
  "loadgen µs",
  "server µs",
  "redis µs",
  "mysql µs",
  "total µs",
] as const;

function micros(value: number | undefined): string {
  return value === undefined ? "–" : formatRate(value);
}

/** The server's µs, and of them the other instances' when the bench started a fleet. */
function serverMicros(r: CellResult): string {
  const peers = r.cpuUsPerCycle.serverPeers;
  const all = micros(r.cpuUsPerCycle.server);
  return peers === undefined ? all : `${all} (${formatRate(peers)})`;
}

/**
 * CPU per cycle of each process, in µs: on a box whose cores are all busy, throughput is
 * about cores / total, so this says which process bounds a variant. When the bench started
 * several server instances, the server column reads "all (instances 2..n)".
 */
export function cpuPerCycleTable(results: readonly CellResult[]): string {
  const rows = results.map((r) => {
    const parts = [r.cpuUsPerCycle.loadgen, r.cpuUsPerCycle.server, r.cpuUsPerCycle.redis];
    const mysql = r.cpuUsPerCycle.mysql;
    const total = [...parts, mysql].reduce<number>((sum, us) => sum + (us ?? 0), 0);
    return [
      r.variant,
      String(r.concurrency),
      formatRate(r.keys),
      micros(r.cpuUsPerCycle.loadgen),
      serverMicros(r),
      micros(r.cpuUsPerCycle.redis),
      micros(mysql),
      formatRate(total),
    ];
  });
  return markdownTable(
    COST_HEADERS,
    rows,
    COST_HEADERS.map((_, column) => (column === 0 ? "left" : "right")),
  );
}
