import type { VariantName } from "../plan/variants.js";
import type { CellResult } from "../stats/summarize-cell.js";

/** One target of issue 8 or 13 (or 15: the semaphore's ratio to the mutex), judged on this run's numbers. */
export interface TargetCheck {
  readonly id: string;
  /** What is compared, in words. */
  readonly description: string;
  /** The measured ratio or latency; null when this run did not measure it. */
  readonly value: number | null;
  readonly comparison: ">=" | "<=";
  readonly limit: number;
  /** Unit of `value` and `limit`: `×` for ratios, `ms` for latencies, `/s` per client. */
  readonly unit: "×" | "ms" | "/s";
  /** Null when not measured. */
  readonly met: boolean | null;
  /** Which cell the value comes from. */
  readonly cell: string | null;
}

/** Memory numbers the targets need, in bytes. */
export interface MemoryForTargets {
  readonly redisBytesPerLock: number | null;
  readonly bareKeyBytes: number | null;
  /** Bulk renewal calls per second per SDK client holding locks. */
  readonly renewalCallsPerClientPerSec?: number | null;
}

/** The low-contention key space the headline ratios are quoted at (issue 8). */
const HEADLINE_KEYS = 10_000;

function find(
  results: readonly CellResult[],
  variant: VariantName,
  concurrency: number,
  keys: number,
): CellResult | undefined {
  return results.find(
    (r) => r.variant === variant && r.concurrency === concurrency && r.keys === keys,
  );
}

/**
 * The highest concurrency at which both variants ran over 10 000 keys (64 in a full run,
 * the same in --quick for the sdk pair, 16 for the others there).
 */
function headlineConcurrency(
  results: readonly CellResult[],
  a: VariantName,
  b: VariantName,
): number | null {
  const shared = results
    .filter((r) => r.variant === a && r.keys === HEADLINE_KEYS)
    .map((r) => r.concurrency)
    .filter((c) => find(results, b, c, HEADLINE_KEYS) !== undefined);
  return shared.length === 0 ? null : Math.max(...shared);
}

function ratioCheck(
  results: readonly CellResult[],
  id: string,
  numerator: VariantName,
  denominator: VariantName,
  limit: number,
): TargetCheck {
  const concurrency = headlineConcurrency(results, numerator, denominator);
  const top =
    concurrency === null ? undefined : find(results, numerator, concurrency, HEADLINE_KEYS);
  const bottom =
    concurrency === null ? undefined : find(results, denominator, concurrency, HEADLINE_KEYS);
  const value =
    top && bottom && bottom.cyclesPerSec > 0 ? top.cyclesPerSec / bottom.cyclesPerSec : null;
  return {
    id,
    description: `${numerator} / ${denominator} cycles/s`,
    value,
    comparison: ">=",
    limit,
    unit: "×",
    met: value === null ? null : value >= limit,
    cell: concurrency === null ? null : `concurrency ${concurrency}, ${HEADLINE_KEYS} keys`,
  };
}

/** Judges the targets of issues 8, 13 and 15 on this run; unmeasured targets come back with `met: null`. */
export function evaluateTargets(
  results: readonly CellResult[],
  memory: MemoryForTargets,
): TargetCheck[] {
  const sdk16 = find(results, "sdk", 16, HEADLINE_KEYS);
  const memoryRatio =
    memory.redisBytesPerLock !== null && memory.bareKeyBytes !== null && memory.bareKeyBytes > 0
      ? memory.redisBytesPerLock / memory.bareKeyBytes
      : null;
  return [
    ratioCheck(results, "sdk-throughput", "sdk", "raw-ioredis", 0.45),
    {
      id: "sdk-acquire-p99",
      description: "sdk acquire p99",
      value: sdk16?.acquireP99Ms ?? null,
      comparison: "<=",
      limit: 2,
      unit: "ms",
      met: sdk16 ? sdk16.acquireP99Ms <= 2 : null,
      cell: sdk16 ? `concurrency 16, ${HEADLINE_KEYS} keys` : null,
    },
    ratioCheck(results, "core-throughput", "core-redis", "raw-ioredis", 0.9),
    ratioCheck(results, "mysql-throughput", "sdk-mysql", "raw-mysql", 0.8),
    // Issue 15: a semaphore acquire+release costs at most a quarter more than the mutex's.
    ratioCheck(results, "semaphore-throughput", "sdk-semaphore", "sdk", 0.8),
    // A read lock's try and release costs at most a quarter more than the mutex's (decision 0046).
    ratioCheck(results, "read-lock-throughput", "sdk-read-lock", "sdk", 0.8),
    {
      id: "redis-memory",
      description: "Redis bytes per live lock / bare SET NX PX key",
      value: memoryRatio,
      comparison: "<=",
      limit: 2,
      unit: "×",
      met: memoryRatio === null ? null : memoryRatio <= 2,
      cell: null,
    },
    {
      id: "renewal-calls",
      description: "renewal calls per second per SDK client holding locks",
      value: memory.renewalCallsPerClientPerSec ?? null,
      comparison: "<=",
      limit: 2,
      unit: "/s",
      met:
        memory.renewalCallsPerClientPerSec == null ? null : memory.renewalCallsPerClientPerSec <= 2,
      cell: null,
    },
  ];
}

/** `a / b` cycles/s for every (concurrency, keys) where both ran. */
export function ratiosByCell(
  results: readonly CellResult[],
  numerator: VariantName,
  denominator: VariantName,
): { readonly concurrency: number; readonly keys: number; readonly ratio: number }[] {
  return results
    .filter((r) => r.variant === numerator)
    .flatMap((top) => {
      const bottom = find(results, denominator, top.concurrency, top.keys);
      return bottom && bottom.cyclesPerSec > 0
        ? [
            {
              concurrency: top.concurrency,
              keys: top.keys,
              ratio: top.cyclesPerSec / bottom.cyclesPerSec,
            },
          ]
        : [];
    });
}
