import type { AccountRow, LedgerRow } from "../ledger/ledger-types.js";

/** The guard the workers wrote through: the real one, or the negative control. */
export type GuardMode = "rmw" | "fence-only";

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
  /** The ledger resource's lease, in ms. */
  readonly leaseMs: number;
  /** lease + probe bound + 2 s: the longest acceptable recovery, in ms. */
  readonly recoveryBoundMs: number;
  /** Fewer accepted writes make the run invalid. */
  readonly minAcceptedWrites: number;
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
