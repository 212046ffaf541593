import type { Revision } from "../infra/revision.js";
import type { RedisMemoryResult } from "../memory/redis-bytes-per-lock.js";
import type { BenchPlan } from "../plan/bench-plan.js";
import type { CellResult } from "../stats/summarize-cell.js";
import type { VariantProfile } from "../run/slot-profiles.js";
import { instancesRows, queueCostRows, type FleetCell } from "./fleet-report.js";
import type { TargetCheck } from "./targets.js";
import { instancesOf } from "../plan/variants.js";

/** The machine and software a run measured. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly os: string;
  readonly node: string;
  readonly redis: string | null;
  readonly mariadb: string | null;
}

/** The server's memory under held locks and queued waiters. */
export interface ServerMemoryResult {
  /** RSS of the idle server after the throughput rounds, in MiB. */
  readonly baselineRssMb: number;
  /** RSS with the locks held and the waiters queued, in MiB. */
  readonly rssMb: number;
  /** Locks the plan asked for. */
  readonly requestedLocks: number;
  /** Locks still live when the RSS was read (fewer than asked when the server was too slow). */
  readonly liveLocks: number;
  /** (RSS − idle RSS) / live locks, in KiB: the server's memory per lock, waiters included. */
  readonly rssPerLockKb: number;
  /** Waiters the server listed as queued. */
  readonly waiters: number;
  /** SDK clients (WebSockets) the waiters were spread over. */
  readonly waiterClients: number;
  /** Time the locks took to acquire, in ms. */
  readonly holdAcquireMs: number;
  /** Grants per second while taking the locks. */
  readonly holdGrantsPerSec: number;
  /**
   * Bulk renewal commands per second the holding clients sent, over one renewal period
   * with every lock held (issue 13: at most 2 per client).
   */
  readonly renewalCallsPerSec: number;
  /** Leases renewed per second over the same window (about locks ÷ a third of the lease). */
  readonly renewedLeasesPerSec: number;
}

/** Everything one run produced; the JSON file and the printed report are views of it. */
export interface BenchReport {
  readonly command: string;
  readonly revision: Revision;
  readonly mode: BenchPlan["mode"];
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: MachineInfo;
  /** 1, 5 and 15-minute load averages at start and end: other work on the box. */
  readonly loadAverage: { readonly start: number[]; readonly end: number[] };
  readonly plan: Pick<BenchPlan, "rounds" | "roundMs" | "warmupMs" | "leaseMs">;
  readonly runs: readonly CellResult[];
  readonly redisMemory: RedisMemoryResult | null;
  readonly serverMemory: ServerMemoryResult | null;
  readonly targets: readonly TargetCheck[];
  /** CPU profile summaries of the measured slots (`--profile`); empty otherwise. */
  readonly profiles: readonly VariantProfile[];
}

/**
 * The JSON file: issue 8's shape (`runs[]` with the named fields, `memory` with
 * redisBytesPerLock, bareKeyBytes, serverRssMb) plus the details behind them.
 */
export function benchJson(report: BenchReport) {
  return {
    command: report.command,
    revision: report.revision,
    mode: report.mode,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    machine: report.machine,
    loadAverage: report.loadAverage,
    plan: report.plan,
    runs: report.runs.map((run) => ({
      variant: run.variant,
      concurrency: run.concurrency,
      keys: run.keys,
      serverInstances: instancesOf(run.variant),
      cyclesPerSec: round(run.cyclesPerSec, 1),
      successRate: round(run.successRate, 4),
      acquireP50Ms: round(run.acquireP50Ms, 3),
      acquireP99Ms: round(run.acquireP99Ms, 3),
      acquireP999Ms: round(run.acquireP999Ms, 3),
      cycleP99Ms: round(run.cycleP99Ms, 3),
      cycles: run.cycles,
      errors: run.errors,
      rounds: run.rounds,
      cpuPercent: roundAll(run.cpuPercent, 1),
      cpuUsPerCycle: roundAll(run.cpuUsPerCycle, 0),
      firstError: run.firstError,
    })),
    memory: {
      redisBytesPerLock: maybeRound(report.redisMemory?.wardenBytesPerLock, 1),
      bareKeyBytes: maybeRound(report.redisMemory?.bareBytesPerLock, 1),
      serverRssMb: maybeRound(report.serverMemory?.rssMb, 1),
      renewalCallsPerSec: maybeRound(report.serverMemory?.renewalCallsPerSec, 1),
      redis: report.redisMemory,
      server: report.serverMemory,
    },
    fleet: {
      instances: instancesRows(report.runs).map((row) => ({
        concurrency: row.concurrency,
        keys: row.keys,
        throughputRatio: row.throughputRatio === null ? null : round(row.throughputRatio, 3),
        one: roundCell(row.one),
        three: roundCell(row.three),
      })),
      queueRedisCost: queueCostRows(report.runs).map((row) => ({
        fair: row.fair,
        plain: row.plain,
        concurrency: row.concurrency,
        keys: row.keys,
        fairRedisUsPerCycle: round(row.fairRedisUs, 1),
        plainRedisUsPerCycle: round(row.plainRedisUs, 1),
        addedRedisUsPerCycle: round(row.addedRedisUs, 1),
        throughputRatio: row.throughputRatio === null ? null : round(row.throughputRatio, 3),
      })),
    },
    targets: report.targets,
    profiles: report.profiles,
  };
}

function round(value: number, digits: number): number | null {
  if (!Number.isFinite(value)) return null;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function roundAll(values: Record<string, number>, digits: number): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, round(value, digits)]),
  );
}

function maybeRound(value: number | undefined, digits: number): number | null {
  return value === undefined ? null : round(value, digits);
}

function roundCell(cell: FleetCell) {
  return {
    cyclesPerSec: round(cell.cyclesPerSec, 1),
    acquireP99Ms: round(cell.acquireP99Ms, 3),
    serverUsPerCycle: cell.serverUsPerCycle === null ? null : round(cell.serverUsPerCycle, 0),
    redisUsPerCycle: cell.redisUsPerCycle === null ? null : round(cell.redisUsPerCycle, 0),
  };
}
