import { groupKeyOf } from "../plan/schedule.js";
import type { VariantName } from "../plan/variants.js";
import type { BenchReport } from "./bench-report.js";
import { fleetSection } from "./fleet-report.js";
import { formatRatio, formatRate } from "./format-number.js";
import { markdownTable } from "./markdown-table.js";
import { cpuPerCycleTable, resultsTable } from "./results-table.js";
import { ratiosByCell, type TargetCheck } from "./targets.js";

const RATIOS: readonly (readonly [VariantName, VariantName])[] = [
  ["sdk", "raw-ioredis"],
  ["core-redis", "raw-ioredis"],
  ["core-redis-fair", "core-redis"],
  ["sdk-fair", "sdk"],
  ["sdk-semaphore", "sdk"],
  ["sdk-semaphore-fair", "sdk-fair"],
  ["sdk-read-lock", "sdk"],
  ["sdk-3clients", "sdk"],
  ["sdk-3instances", "sdk-3clients"],
  ["sdk-fenced-write", "sdk"],
  ["sdk-mysql", "raw-mysql"],
  ["core-mysql", "raw-mysql"],
];

function targetLine(check: TargetCheck): string {
  const verdict = check.met === null ? "not measured" : check.met ? "met" : "MISSED";
  const value =
    check.value === null
      ? "–"
      : check.unit === "×"
        ? formatRatio(check.value)
        : check.unit === "/s"
          ? `${check.value.toFixed(2)}/s`
          : `${check.value.toFixed(2)} ms`;
  const limit =
    check.unit === "×"
      ? `${check.limit}×`
      : check.unit === "/s"
        ? `${check.limit}/s`
        : `${check.limit} ms`;
  const where = check.cell ? ` (${check.cell})` : "";
  return `- ${check.description}${where}: **${value}** (target ${check.comparison} ${limit}) — ${verdict}`;
}

function revisionText(report: BenchReport): string {
  const { commit, dirty } = report.revision;
  if (commit === null) return "an unknown revision";
  return dirty ? `${commit} with uncommitted changes` : `commit ${commit}`;
}

function ratioTable(report: BenchReport): string {
  const groups = [...new Set(report.runs.map(groupKeyOf))];
  const rows = RATIOS.flatMap(([a, b]) => {
    const byGroup = new Map(
      ratiosByCell(report.runs, a, b).map((r) => [groupKeyOf(r), r.ratio] as const),
    );
    if (byGroup.size === 0) return [];
    return [[`${a} / ${b}`, ...groups.map((g) => formatRatio(byGroup.get(g) ?? null))]];
  });
  const headers = ["cycles/s ratio", ...groups.map((g) => `c=${g.replace("/", ", K=")}`)];
  return markdownTable(headers, rows, ["left", ...groups.map(() => "right" as const)]);
}

function memorySection(report: BenchReport): string[] {
  const lines: string[] = [];
  const redis = report.redisMemory;
  if (redis) {
    lines.push(
      `- Redis, ${formatRate(redis.locks)} live locks: **${redis.wardenBytesPerLock.toFixed(0)} B per Warden lock** ` +
        `vs **${redis.bareBytesPerLock.toFixed(0)} B per bare \`SET NX PX\` key** ` +
        `(${formatRatio(redis.wardenBytesPerLock / redis.bareBytesPerLock)}; key ${redis.keyBytes} B, ` +
        `value ${redis.wardenValueBytes} B vs a ${redis.bareValueBytes} B token; \`INFO memory\` used_memory delta).`,
    );
  }
  const server = report.serverMemory;
  if (server) {
    // RSS keeps what the rounds' heap grew to: when the idle figure is not below the one with
    // the locks, the difference says nothing about the locks.
    const perLock =
      server.rssPerLockKb > 0
        ? `so ~${server.rssPerLockKb.toFixed(1)} KiB per lock, waiters included`
        : "not below the RSS with the locks, so this run cannot tell what a lock costs: " +
          "RSS keeps the heap the rounds grew";
    lines.push(
      `- Server RSS: **${server.rssMb.toFixed(0)} MiB** with ${formatRate(server.liveLocks)} live locks ` +
        `and ${formatRate(server.waiters)} queued waiters on ${server.waiterClients} SDK connections ` +
        `(idle after the rounds: ${server.baselineRssMb.toFixed(0)} MiB, ${perLock}; the locks took ` +
        `${(server.holdAcquireMs / 1000).toFixed(1)} s at ${formatRate(server.holdGrantsPerSec)} grants/s).`,
    );
    lines.push(
      `- Renewals: the ${server.waiterClients} SDK clients holding those locks sent ` +
        `**${server.renewalCallsPerSec.toFixed(1)} renewal calls/s** ` +
        `(${(server.renewalCallsPerSec / Math.max(1, server.waiterClients)).toFixed(2)} per client) ` +
        `renewing ${formatRate(server.renewedLeasesPerSec)} leases/s: bulk renewals, one command ` +
        `for the renewals a client has due within a second.`,
    );
    if (server.liveLocks < server.requestedLocks) {
      lines.push(
        `- Not the ${formatRate(server.requestedLocks)} live locks asked for: taking locks stops ` +
          `after 45 s, and at ${formatRate(server.holdGrantsPerSec)} grants/s this server took ` +
          `${formatRate(server.liveLocks)} by then.`,
      );
    }
  }
  return lines;
}

/** The run as a README section: command, machine, date, tables, memory, targets. */
export function markdownReport(report: BenchReport): string {
  const m = report.machine;
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(" / ");
  return [
    "## Benchmark",
    "",
    `\`${report.command}\` — ${report.startedAt.slice(0, 10)}, ${report.mode} run of ` +
      `${revisionText(report)}, ` +
      `${report.plan.rounds} interleaved rounds of ${report.plan.roundMs / 1000} s per cell ` +
      `after a ${report.plan.warmupMs / 1000} s warm-up.`,
    "",
    `Machine: ${m.cores} × ${m.cpuModel}, ${m.memoryGb.toFixed(0)} GB, ${m.os}; Node ${m.node}, ` +
      `Redis ${m.redis ?? "?"}, MariaDB ${m.mariadb ?? "?"}. Load generator, Warden server, ` +
      `redis-server and mariadbd all share these cores. Load average (1/5/15 min) at start ` +
      `${load(report.loadAverage.start)}, at end ${load(report.loadAverage.end)}.`,
    "",
    "Each cycle: a random key among K, acquire without waiting, release if granted " +
      "(sdk-fenced-write: one `fencedUpdate` in between; sdk-semaphore: a 1-permit " +
      "`warden.semaphore(resource, key).tryAcquire()` and `permit.release()`, so a key is as " +
      "contended as the mutex's, and sdk-semaphore-fair the same on a fair resource; sdk-read-lock: `warden.rwLock(resource, key).tryRead()` and " +
      "`lease.release()`, readers never excluding each other). Latencies in ms; CPU in % of " +
      "one core while the cell ran.",
    "",
    resultsTable(report.runs),
    "",
    ratioTable(report),
    "",
    "CPU per cycle, by process (µs; the coordinator's own share is negligible):",
    "",
    cpuPerCycleTable(report.runs),
    "",
    ...fleetSection(report.runs),
    "Memory:",
    "",
    ...memorySection(report),
    "",
    "Targets (issues 8, 13 and 15):",
    "",
    ...report.targets.map(targetLine),
    "",
  ].join("\n");
}
