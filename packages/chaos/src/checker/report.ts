/** One fault's line of the report (the fields first). */
export interface FaultReport {
  readonly name: string;
  readonly acceptedWrites: number;
  /** Claims and writes the guard refused as stale (the fence doing its job). */
  readonly staleRejected: number;
  readonly staleAccepted: number;
  readonly lost: number;
  readonly doubled: number;
  /** Grants whose fence was not above an earlier grant's for the account (S2). */
  readonly fenceRegressions: number;
  /** Two workers believing they held one account at once; counted, not failed. */
  readonly unfencedOverlaps: number;
  /** Heal → every live worker granted and every account written again; null if never. */
  readonly recoveryMs: number | null;
  readonly hit: boolean;
  readonly evidence: string;
}

/** One pass/fail line. */
export interface CheckLine {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** What `pnpm chaos` prints and writes to `--out`. */
export interface ChaosReport {
  readonly seed: number;
  readonly mode: string;
  readonly guard: string;
  readonly faults: readonly FaultReport[];
  /** The same counters for the healthy traffic before the first fault. */
  readonly baseline: Omit<FaultReport, "name" | "recoveryMs" | "hit" | "evidence">;
  readonly totals: {
    readonly acceptedWrites: number;
    readonly staleRejected: number;
    readonly fenceRegressions: number;
    readonly unfencedOverlaps: number;
    readonly recoveryBoundMs: number;
  };
  readonly checks: readonly CheckLine[];
  readonly ok: boolean;
}
