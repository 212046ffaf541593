/** One fault's line of the report (the fields first). */
export interface FaultReport {
  readonly name: string;
  readonly acceptedWrites: number;
  /** Claims and writes the guard refused as stale (the fence doing its job). */
  readonly staleRejected: number;
  readonly staleAccepted: number;
  readonly lost: number;
  readonly doubled: number;
  /**
   * Grants whose fence was not above an earlier grant's for the account
   * (docs/design.md#fences-only-grow).
   */
  readonly fenceRegressions: number;
  /** Two workers believing they held one account at once; counted, not failed. */
  readonly unfencedOverlaps: number;
  /** The leader-elected writer's counters in this window (absent in runs without it). */
  readonly leader?: LeaderCounters;
  /** The semaphore's counters in this window (absent in runs without it). */
  readonly semaphore?: SemaphoreCounters;
  /** Heal → every live worker granted and every account written again; null if never. */
  readonly recoveryMs: number | null;
  readonly hit: boolean;
  readonly evidence: string;
}

/** The leader-elected writer's account: what its writes did (decision 0172). */
export interface LeaderCounters {
  readonly acceptedWrites: number;
  /** A demoted leader's claims and writes refused because a later term wrote. */
  readonly staleRejected: number;
  readonly staleAccepted: number;
  readonly lost: number;
  readonly doubled: number;
  /** Elections whose term was not above one elected before the round began. */
  readonly termRegressions: number;
  /** Two candidates believing they led at once; counted, not failed. */
  readonly overlaps: number;
}

/** The whole run's leader counters, with its terms. */
export interface LeaderSummary extends LeaderCounters {
  readonly account: string;
  /** Distinct terms elected. */
  readonly terms: number;
  /** Distinct candidate incarnations that were elected. */
  readonly leaders: number;
  /** Terms whose accepted writes came from more than one lock. */
  readonly termsWithSeveralWriters: number;
}

/** The semaphore's slots: what the permit holders' writes did (decision 0172). */
export interface SemaphoreCounters {
  readonly acceptedWrites: number;
  /** Claims and writes refused because a newer permit had taken the slot. */
  readonly staleRejected: number;
  readonly staleAccepted: number;
  readonly lost: number;
  readonly doubled: number;
  /** Permits whose fence was not above one granted before they were asked for. */
  readonly fenceRegressions: number;
  /** Holders whose accepted writes began while `permits` others' were open (ledger clock). */
  readonly overPermitsAccepted: number;
  /** Holders that believed they held a permit while `permits` others did; counted, not failed. */
  readonly overPermitsBeliefs: number;
}

/** The whole run's semaphore counters. */
export interface SemaphoreSummary extends SemaphoreCounters {
  readonly key: string;
  readonly slots: readonly string[];
  readonly permits: number;
  readonly grants: number;
  readonly holdersWithAcceptedWrites: number;
  /** Most holders whose accepted-write intervals overlapped (ledger clock). */
  readonly maxAcceptedAtOnce: number;
  /** Most holders believing they held a permit at once. */
  readonly maxBelievedAtOnce: number;
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
  /** The Redis topology under the servers: `sentinel` or `cluster`. */
  readonly redis: string;
  /** How many Warden server instances served the workers. */
  readonly serverInstances: number;
  /** The resources' `waitReplicas`: replicas each Redis grant waited for (0: none). */
  readonly waitReplicas: number;
  /** Grants undone for want of replica acknowledgements, per resource (from the audit). */
  readonly undoneGrants: Readonly<Record<string, number>>;
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
  /** The leader-elected writer over the whole run (absent in runs without it). */
  readonly leader?: LeaderSummary;
  /** The semaphore's slots over the whole run (absent in runs without it). */
  readonly semaphore?: SemaphoreSummary;
  readonly checks: readonly CheckLine[];
  readonly ok: boolean;
}
