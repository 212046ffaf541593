import type { AccountRow, LedgerRow } from "../ledger/ledger-types.js";

/** The guard the workers wrote through: the real one, or the negative control. */
export type GuardMode = "rmw" | "fence-only";

/** The semaphore key of a run, its total and the ledger accounts it guards. */
export interface SemaphoreFacts {
  readonly key: string;
  readonly permits: number;
  readonly slots: readonly string[];
}

/** A lock still held after every worker stopped and every lease could have expired. */
export interface StuckLock {
  readonly account: string;
  readonly lockId: string;
  readonly holder: string;
}

/** A process the run started that was still running after teardown. */
export interface LeftoverProcess {
  readonly role: string;
  readonly id: string;
  readonly pid: number;
}

/**
 * Everything the checker knows besides the event log: the final databases and how the
 * run ended. Written to `final.json` so a run can be checked again later.
 */
export interface RunFacts {
  readonly seed: number;
  readonly mode: string;
  readonly guard: GuardMode;
  /** `sentinel` or `cluster` (absent in runs made before the cluster variant: sentinel). */
  readonly redis?: string;
  /** How many Warden server instances served the workers (absent in older runs: 2). */
  readonly serverInstances?: number;
  /** The resources' `waitReplicas` (absent in older runs: 0). */
  readonly waitReplicas?: number;
  /**
   * Grants undone because too few replicas acknowledged them, per resource, from Warden's
   * audit (absent when none were or the audit could not be read).
   */
  readonly undoneGrants?: Readonly<Record<string, number>>;
  /** The ledger resource's lease, in ms. */
  readonly leaseMs: number;
  /** lease + probe bound + 2 s: the longest acceptable recovery, in ms. */
  readonly recoveryBoundMs: number;
  /** Fewer accepted writes make the run invalid. */
  readonly minAcceptedWrites: number;
  /**
   * The account only the elected leader writes, fenced by its term (absent in runs made
   * before the election was added: no leader checks).
   */
  readonly leaderAccount?: string;
  /** The semaphore the permit holders share, and its slots (absent in older runs). */
  readonly semaphore?: SemaphoreFacts;
  readonly accounts: readonly AccountRow[];
  readonly ledger: readonly LedgerRow[];
  readonly stuckLocks: readonly StuckLock[];
  readonly processes: {
    readonly started: number;
    readonly stillRunning: readonly LeftoverProcess[];
  };
  /** When the workers were told to stop (monotonic ms): the end of the last fault's window. */
  readonly endMono: number;
}
