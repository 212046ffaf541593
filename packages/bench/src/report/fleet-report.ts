import type { VariantName } from "../plan/variants.js";
import type { CellResult } from "../stats/summarize-cell.js";
import { formatMs, formatRate, formatRatio } from "./format-number.js";
import { markdownTable } from "./markdown-table.js";

/**
 * Several server instances against one: the same three SDK clients and cycles, spread one
 * per instance (`sdk-3instances`) or all on one instance (`sdk-3clients`), plus the usual
 * single-client `sdk` cell.
 */
export interface InstancesRow {
  readonly concurrency: number;
  readonly keys: number;
  /** cycles/s, acquire p99 (ms) and the servers' CPU per cycle (µs, summed over instances). */
  readonly one: FleetCell;
  readonly three: FleetCell;
  /** three / one cycles/s. */
  readonly throughputRatio: number | null;
}

/** The figures of one cell the fleet section quotes. */
export interface FleetCell {
  readonly cyclesPerSec: number;
  readonly acquireP99Ms: number;
  readonly serverUsPerCycle: number | null;
  readonly redisUsPerCycle: number | null;
}

/** What the fair queue adds to a lock cycle in Redis, for one pair of cells. */
export interface QueueCostRow {
  /** The fair variant and the plain one it is read against. */
  readonly fair: VariantName;
  readonly plain: VariantName;
  readonly concurrency: number;
  readonly keys: number;
  /** redis-server CPU per cycle, fair and plain, in µs. */
  readonly fairRedisUs: number;
  readonly plainRedisUs: number;
  /** fair − plain, in µs: the queue's Redis cost per cycle. */
  readonly addedRedisUs: number;
  /** fair / plain cycles/s. */
  readonly throughputRatio: number | null;
}

/** The pairs a queue cost is read from: the store alone, and the whole SDK path. */
export const QUEUE_PAIRS: readonly (readonly [VariantName, VariantName])[] = [
  ["core-redis-fair", "core-redis"],
  ["sdk-fair", "sdk"],
];

function fleetCell(cell: CellResult): FleetCell {
  return {
    cyclesPerSec: cell.cyclesPerSec,
    acquireP99Ms: cell.acquireP99Ms,
    serverUsPerCycle: cell.cpuUsPerCycle.server ?? null,
    redisUsPerCycle: cell.cpuUsPerCycle.redis ?? null,
  };
}

function ratio(top: number, bottom: number): number | null {
  return bottom > 0 ? top / bottom : null;
}

function pairs(
  runs: readonly CellResult[],
  a: VariantName,
  b: VariantName,
): (readonly [CellResult, CellResult])[] {
  return runs
    .filter((run) => run.variant === a)
    .flatMap((top) => {
      const bottom = runs.find(
        (r) => r.variant === b && r.concurrency === top.concurrency && r.keys === top.keys,
      );
      return bottom ? [[top, bottom] as const] : [];
    });
}

/** One row per (concurrency, keys) where both `sdk-3instances` and `sdk-3clients` ran. */
export function instancesRows(runs: readonly CellResult[]): InstancesRow[] {
  return pairs(runs, "sdk-3instances", "sdk-3clients").map(([three, one]) => ({
    concurrency: three.concurrency,
    keys: three.keys,
    one: fleetCell(one),
    three: fleetCell(three),
    throughputRatio: ratio(three.cyclesPerSec, one.cyclesPerSec),
  }));
}

/** One row per fair/plain pair and (concurrency, keys) where both ran and Redis CPU was read. */
export function queueCostRows(runs: readonly CellResult[]): QueueCostRow[] {
  return QUEUE_PAIRS.flatMap(([fair, plain]) =>
    pairs(runs, fair, plain).flatMap(([f, p]) => {
      const fairRedisUs = f.cpuUsPerCycle.redis;
      const plainRedisUs = p.cpuUsPerCycle.redis;
      if (fairRedisUs === undefined || plainRedisUs === undefined) return [];
      return [
        {
          fair,
          plain,
          concurrency: f.concurrency,
          keys: f.keys,
          fairRedisUs,
          plainRedisUs,
          addedRedisUs: fairRedisUs - plainRedisUs,
          throughputRatio: ratio(f.cyclesPerSec, p.cyclesPerSec),
        },
      ];
    }),
  );
}

function micros(value: number | null): string {
  return value === null ? "–" : formatRate(value);
}

/** The fleet section of the report: empty when the run had neither pair. */
export function fleetSection(runs: readonly CellResult[]): string[] {
  const lines: string[] = [];
  const instances = instancesRows(runs);
  if (instances.length > 0) {
    lines.push(
      "1 vs 3 server instances: the same 3 SDK clients, all on one instance (sdk-3clients) or " +
        "one per instance (sdk-3instances), on one Redis and one MariaDB. Server CPU is summed " +
        "over every running instance in both columns (in the 1-instance cell the other two idle, " +
        "following the fleet bus and the registry). Every process shares the same cores, so " +
        "more instances cannot add throughput here: the figure is the cost of spreading the " +
        "load, not scaling.",
      "",
      markdownTable(
        [
          "conc",
          "keys",
          "1 inst cycles/s",
          "3 inst cycles/s",
          "3 / 1",
          "1 inst acq p99",
          "3 inst acq p99",
          "1 inst server µs",
          "3 inst server µs",
        ],
        instances.map((row) => [
          String(row.concurrency),
          formatRate(row.keys),
          formatRate(row.one.cyclesPerSec),
          formatRate(row.three.cyclesPerSec),
          formatRatio(row.throughputRatio),
          formatMs(row.one.acquireP99Ms),
          formatMs(row.three.acquireP99Ms),
          micros(row.one.serverUsPerCycle),
          micros(row.three.serverUsPerCycle),
        ]),
        ["right", "right", "right", "right", "right", "right", "right", "right", "right"],
      ),
      "",
    );
  }
  const queue = queueCostRows(runs);
  if (queue.length > 0) {
    lines.push(
      "The fair queue's Redis cost: redis-server CPU per cycle of a fair resource next to the " +
        "plain one (core-redis-fair: every cycle takes a place and is granted or gives it up; " +
        "sdk-fair: a try without waiting, which only reads the queue's head).",
      "",
      markdownTable(
        [
          "fair / plain",
          "conc",
          "keys",
          "fair redis µs",
          "plain redis µs",
          "added µs",
          "cycles/s ratio",
        ],
        queue.map((row) => [
          `${row.fair} / ${row.plain}`,
          String(row.concurrency),
          formatRate(row.keys),
          formatRate(row.fairRedisUs),
          formatRate(row.plainRedisUs),
          formatRate(row.addedRedisUs),
          formatRatio(row.throughputRatio),
        ]),
        ["left", "right", "right", "right", "right", "right", "right"],
      ),
      "",
    );
  }
  return lines;
}
