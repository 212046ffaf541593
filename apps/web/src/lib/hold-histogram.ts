import { formatShortDuration } from "./format-time";

/** One bar of the hold-time distribution. */
export interface HistogramRow {
  /** The upper edge, `<200ms`, or `≥1m` for the last, open bucket: short enough for an axis. */
  readonly label: string;
  readonly fromMs: number;
  /** Exclusive upper edge; null for the open bucket. */
  readonly toMs: number | null;
  readonly count: number;
  /** Fraction of all holds, 0..1. */
  readonly share: number;
}

/**
 * Bucket edges in ms on a 1-2-5 ladder up to the 60 s lease cap: holds spread over four
 * orders of magnitude, and equal-width buckets would put them all in the first bar.
 */
export const HOLD_EDGES_MS: readonly number[] = Object.freeze([
  0, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000,
]);

function label(fromMs: number, toMs: number | null): string {
  return toMs === null ? `≥${formatShortDuration(fromMs)}` : `<${formatShortDuration(toMs)}`;
}

/** Counts hold durations (ms) into the buckets `edgesMs` (ascending) define; the last is open. */
export function holdHistogram(
  samplesMs: readonly number[],
  edgesMs: readonly number[] = HOLD_EDGES_MS,
): HistogramRow[] {
  const counts = new Array<number>(edgesMs.length).fill(0);
  for (const sample of samplesMs) {
    if (!Number.isFinite(sample) || sample < 0) continue;
    let index = edgesMs.length - 1;
    while (index > 0 && sample < (edgesMs[index] ?? 0)) index -= 1;
    counts[index] = (counts[index] ?? 0) + 1;
  }
  const total = counts.reduce((sum, count) => sum + count, 0);
  return edgesMs.map((fromMs, index) => {
    const toMs = edgesMs[index + 1] ?? null;
    const count = counts[index] ?? 0;
    return {
      label: label(fromMs, toMs),
      fromMs,
      toMs,
      count,
      share: total === 0 ? 0 : count / total,
    };
  });
}

/** A Prometheus-style cumulative bucket: holds of at most `leMs` (null = +Inf). */
export interface CumulativeBucket {
  readonly leMs: number | null;
  readonly count: number;
}

/** Turns cumulative (`le`) buckets, as a histogram metric keeps them, into bars. */
export function histogramFromCumulative(buckets: readonly CumulativeBucket[]): HistogramRow[] {
  const sorted = [...buckets].sort((a, b) => (a.leMs ?? Infinity) - (b.leMs ?? Infinity));
  const total = sorted.at(-1)?.count ?? 0;
  let previousLe = 0;
  let previousCount = 0;
  return sorted.map((bucket) => {
    const count = Math.max(0, bucket.count - previousCount);
    const row: HistogramRow = {
      label: label(previousLe, bucket.leMs),
      fromMs: previousLe,
      toMs: bucket.leMs,
      count,
      share: total === 0 ? 0 : count / total,
    };
    previousLe = bucket.leMs ?? previousLe;
    previousCount = bucket.count;
    return row;
  });
}

/** The `q` quantile (0..1) of `values` by nearest rank; null for no values. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? null;
}
