import { formatClock } from "./format-time";

/**
 * One bucket of a resource's time series as the console needs it (the `stats` router's
 * points are mapped to this by the hook). Counts are per bucket; percentiles in ms are
 * null when the bucket had no samples.
 */
export interface StatsBucket {
  /** Start of the bucket, ms since the Unix epoch. */
  readonly atMs: number;
  readonly grants: number;
  readonly refusals: number;
  /** Acquires that waited and ran out of time. */
  readonly timeouts: number;
  /** Acquires refused because no tier could grant (fail-closed). */
  readonly unavailable: number;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly latencyP999Ms: number | null;
  readonly holdP50Ms: number | null;
  readonly holdP99Ms: number | null;
  readonly holdP999Ms: number | null;
  /** Waiters queued at the end of the bucket. */
  readonly queueDepth: number;
}

/** The window a chart covers. */
export interface ChartWindow {
  readonly fromMs: number;
  readonly toMs: number;
  /** Bucket width in ms (1 s .. 60 s). */
  readonly stepMs: number;
}

/** A row of the acquire-rate chart: outcomes per second. */
export interface RateRow {
  readonly atMs: number;
  readonly label: string;
  readonly grantsPerSec: number;
  readonly refusalsPerSec: number;
  readonly timeoutsPerSec: number;
  readonly unavailablePerSec: number;
  readonly queueDepth: number;
}

/** A row of a percentile chart; null breaks the line instead of drawing a false zero. */
export interface PercentileRow {
  readonly atMs: number;
  readonly label: string;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly p999: number | null;
}

/** The lines of every percentile chart, in legend order. */
export const PERCENTILE_LINES = Object.freeze([
  { key: "p50", name: "p50", color: "#2563eb" },
  { key: "p99", name: "p99", color: "#d97706" },
  { key: "p999", name: "p99.9", color: "#dc2626" },
] as const);

/** The stacked areas of the rate chart, in stacking order. */
export const RATE_AREAS = Object.freeze([
  { key: "grantsPerSec", name: "granted", color: "#16a34a" },
  { key: "refusalsPerSec", name: "refused (held)", color: "#d97706" },
  { key: "timeoutsPerSec", name: "timed out", color: "#9333ea" },
  { key: "unavailablePerSec", name: "unavailable", color: "#dc2626" },
] as const);

/**
 * The buckets of `window`, one per step, with the bucket that starts there or null: a
 * gap in the data is a gap in time, not a missing row that would squeeze the x axis.
 */
export function alignBuckets(
  buckets: readonly StatsBucket[],
  window: ChartWindow,
): Array<{ atMs: number; bucket: StatsBucket | null }> {
  if (window.stepMs <= 0 || window.toMs <= window.fromMs) return [];
  const byStart = new Map<number, StatsBucket>();
  for (const bucket of buckets) {
    byStart.set(Math.floor(bucket.atMs / window.stepMs) * window.stepMs, bucket);
  }
  const first = Math.floor(window.fromMs / window.stepMs) * window.stepMs;
  const rows: Array<{ atMs: number; bucket: StatsBucket | null }> = [];
  for (let atMs = first; atMs < window.toMs; atMs += window.stepMs) {
    rows.push({ atMs, bucket: byStart.get(atMs) ?? null });
  }
  return rows;
}

const perSecond = (count: number, stepMs: number) =>
  Math.round((count * 1_000 * 100) / stepMs) / 100;

/** Rows of the acquire-rate chart; empty buckets count as zero (nothing happened). */
export function rateRows(buckets: readonly StatsBucket[], window: ChartWindow): RateRow[] {
  return alignBuckets(buckets, window).map(({ atMs, bucket }) => ({
    atMs,
    label: formatClock(atMs).slice(0, 8),
    grantsPerSec: perSecond(bucket?.grants ?? 0, window.stepMs),
    refusalsPerSec: perSecond(bucket?.refusals ?? 0, window.stepMs),
    timeoutsPerSec: perSecond(bucket?.timeouts ?? 0, window.stepMs),
    unavailablePerSec: perSecond(bucket?.unavailable ?? 0, window.stepMs),
    queueDepth: bucket?.queueDepth ?? 0,
  }));
}

/** Rows of the acquire-latency chart (p50, p99, p99.9 in ms). */
export function latencyRows(buckets: readonly StatsBucket[], window: ChartWindow): PercentileRow[] {
  return alignBuckets(buckets, window).map(({ atMs, bucket }) => ({
    atMs,
    label: formatClock(atMs).slice(0, 8),
    p50: bucket?.latencyP50Ms ?? null,
    p99: bucket?.latencyP99Ms ?? null,
    p999: bucket?.latencyP999Ms ?? null,
  }));
}

/** Rows of the hold-time percentile chart (ms). */
export function holdRows(buckets: readonly StatsBucket[], window: ChartWindow): PercentileRow[] {
  return alignBuckets(buckets, window).map(({ atMs, bucket }) => ({
    atMs,
    label: formatClock(atMs).slice(0, 8),
    p50: bucket?.holdP50Ms ?? null,
    p99: bucket?.holdP99Ms ?? null,
    p999: bucket?.holdP999Ms ?? null,
  }));
}

/** A point of the server's `stats.series` (fields the charts read). */
export interface SeriesPoint {
  readonly t: number;
  readonly granted: number;
  readonly refused: number;
  readonly timeouts: number;
  readonly failed: number;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly latencyP999Ms: number | null;
  readonly holdP50Ms: number | null;
  readonly holdP99Ms: number | null;
  readonly holdP999Ms: number | null;
  readonly queueDepthMax: number;
}

/** The server's series points as chart buckets. */
export function bucketsFromPoints(points: readonly SeriesPoint[]): StatsBucket[] {
  return points.map((point) => ({
    atMs: point.t,
    grants: point.granted,
    refusals: point.refused,
    timeouts: point.timeouts,
    unavailable: point.failed,
    latencyP50Ms: point.latencyP50Ms,
    latencyP99Ms: point.latencyP99Ms,
    latencyP999Ms: point.latencyP999Ms,
    holdP50Ms: point.holdP50Ms,
    holdP99Ms: point.holdP99Ms,
    holdP999Ms: point.holdP999Ms,
    queueDepth: point.queueDepthMax,
  }));
}

/** Outcome totals of a window and their shares, for the overview's split bar. */
export interface AcquireSplit {
  readonly total: number;
  readonly grantedPct: number;
  /** Refused because held, or timed out waiting. */
  readonly refusedPct: number;
  /** Unavailable (fail-closed) or failed. */
  readonly failedPct: number;
}

/** Shares of granted / refused / failed acquires, in whole percent that add up to 100. */
export function acquireSplit(totals: {
  readonly granted: number;
  readonly refused: number;
  readonly timeouts: number;
  readonly failed: number;
}): AcquireSplit {
  const refused = totals.refused + totals.timeouts;
  const total = totals.granted + refused + totals.failed;
  if (total === 0) return { total, grantedPct: 0, refusedPct: 0, failedPct: 0 };
  const refusedPct = Math.round((refused / total) * 100);
  const failedPct = Math.round((totals.failed / total) * 100);
  return { total, grantedPct: 100 - refusedPct - failedPct, refusedPct, failedPct };
}
