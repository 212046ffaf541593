/** Settings of {@link suggestLease}. */
export interface SuggestLeaseOptions {
  /**
   * Lease per observed p99.9 hold. 2 leaves a hold that runs to p99.9 half its lease, room
   * for a GC pause or a slow renewal before the store could hand the key to someone else.
   * @defaultValue 2
   */
  readonly margin?: number;
  /** Fewer holds than this say too little about the tail. @defaultValue 50 */
  readonly minSamples?: number;
  /** Shortest lease worth suggesting, in ms. @defaultValue 1000 */
  readonly floorMs?: number;
}

/** The data behind a suggestion, shown next to it so nobody has to trust a bare number. */
export interface LeaseSuggestion {
  /** Suggested `defaultLeaseMs`, in ms. */
  readonly leaseMs: number;
  /** Observed p99.9 hold time, in ms. */
  readonly p999HoldMs: number;
  readonly margin: number;
  /** Holds the percentile was computed from. */
  readonly samples: number;
  /** True when `p999 × margin` was above `maxLeaseMs` and the suggestion was cut to it. */
  readonly capped: boolean;
  /** p99.9 × margin before rounding and capping, in ms. */
  readonly rawMs: number;
}

/** Why there is no suggestion. */
export interface NoSuggestion {
  readonly leaseMs: null;
  readonly reason: string;
  readonly samples: number;
}

/** Defaults of {@link suggestLease}. */
export const SUGGEST_LEASE_DEFAULTS = Object.freeze({ margin: 2, minSamples: 50, floorMs: 1_000 });

/** Rounds up to a step that reads well in a form: 100 ms under 1 s, 500 ms under 10 s, whole seconds above. */
export function roundUpLease(ms: number): number {
  const step = ms < 1_000 ? 100 : ms < 10_000 ? 500 : 1_000;
  return Math.ceil(ms / step) * step;
}

/**
 * A `defaultLeaseMs` from observed hold times: p99.9 × margin, rounded up, at least
 * `floorMs` and at most `maxLeaseMs` (itself at most the 60 s hard cap).
 */
export function suggestLease(
  observed: { readonly p999HoldMs: number | null; readonly samples: number },
  maxLeaseMs: number,
  options: SuggestLeaseOptions = {},
): LeaseSuggestion | NoSuggestion {
  const { margin, minSamples, floorMs } = { ...SUGGEST_LEASE_DEFAULTS, ...options };
  const { p999HoldMs, samples } = observed;
  if (p999HoldMs === null || samples < minSamples) {
    return {
      leaseMs: null,
      samples,
      reason: `needs at least ${minSamples} observed holds (have ${samples})`,
    };
  }
  const cap = Math.min(Math.max(1, maxLeaseMs), 60_000);
  const rawMs = p999HoldMs * margin;
  const rounded = Math.max(floorMs, roundUpLease(rawMs));
  return {
    leaseMs: Math.min(rounded, cap),
    p999HoldMs,
    margin,
    samples,
    capped: rounded > cap,
    rawMs,
  };
}
