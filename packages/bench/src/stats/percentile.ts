/**
 * The q-quantile of ascending `sorted` samples by the nearest-rank method: the smallest
 * sample that at least q of all samples are less than or equal to. Exact over what was
 * recorded (no buckets): p99.9 of 3 000 samples is the 2 997th smallest. NaN when empty.
 *
 * @param q - quantile in [0, 1], e.g. 0.999 for p99.9
 */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be in [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(q * n));
  return sorted[rank - 1] as number;
}

/** Joins sample arrays into one ascending array (numeric order, NaN last). */
export function sortedSamples(parts: readonly Float64Array[]): Float64Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const all = new Float64Array(total);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all.sort();
}
