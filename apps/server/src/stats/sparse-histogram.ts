// Log-spaced bins 5% wide: a percentile read from them is within ~2.5% of the true value,
// and a bucket of one second holds a few dozen bins, not every sample.
const GROWTH = 1.05;
const LOG_GROWTH = Math.log(GROWTH);

function binOf(value: number): number {
  return value <= 1 ? 0 : Math.ceil(Math.log(value) / LOG_GROWTH);
}

function upperOf(bin: number): number {
  return bin === 0 ? 1 : GROWTH ** bin;
}

/** Counts of values (ms) in log-spaced bins; merge-able, cheap to keep per second. */
export class SparseHistogram {
  readonly bins = new Map<number, number>();
  count = 0;

  add(valueMs: number): void {
    const bin = binOf(Math.max(0, valueMs));
    this.bins.set(bin, (this.bins.get(bin) ?? 0) + 1);
    this.count += 1;
  }

  /** `[bin, count, bin, count, …]`, for sending to other instances. */
  toPairs(): number[] {
    const pairs: number[] = [];
    for (const [bin, count] of this.bins) pairs.push(bin, count);
    return pairs;
  }

  /** A histogram from {@link toPairs}; entries that are not whole numbers are skipped. */
  static fromPairs(pairs: readonly unknown[]): SparseHistogram {
    const histogram = new SparseHistogram();
    for (let index = 0; index + 1 < pairs.length; index += 2) {
      const bin = pairs[index];
      const count = pairs[index + 1];
      if (!Number.isSafeInteger(bin) || !Number.isSafeInteger(count) || (count as number) <= 0)
        continue;
      histogram.bins.set(
        bin as number,
        (histogram.bins.get(bin as number) ?? 0) + (count as number),
      );
      histogram.count += count as number;
    }
    return histogram;
  }

  merge(other: SparseHistogram): void {
    for (const [bin, count] of other.bins) this.bins.set(bin, (this.bins.get(bin) ?? 0) + count);
    this.count += other.count;
  }

  /** The `q`-quantile (0..1) in ms, as the upper edge of its bin; null when empty. */
  quantile(q: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (const bin of [...this.bins.keys()].sort((a, b) => a - b)) {
      seen += this.bins.get(bin) ?? 0;
      if (seen >= rank) return Math.round(upperOf(bin) * 100) / 100;
    }
    return null;
  }
}
