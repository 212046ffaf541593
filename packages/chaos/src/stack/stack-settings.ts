/**
 * Fixed settings of the chaos stack. Durations in ms. Short leases and a fast probe keep
 * recoveries, and so the run, short; the bound the checker applies follows from them.
 */
export const STACK_SETTINGS = Object.freeze({
  /** Worker processes, each an SDK client of one of the server instances (worker i: i mod 3). */
  workers: 8,
  /** Ledger accounts the workers contend for: two workers per account on average. */
  accounts: ["acct-0", "acct-1", "acct-2", "acct-3"] as const,
  initialBalance: 1_000,
  /**
   * Election candidates (worker processes after the mutex workers, on the servers in
   * turn): they campaign on the ledger resource for `leaderAccount`, and only the leader
   * writes that account, fenced by its term.
   */
  leaderCandidates: 3,
  leaderAccount: "leader-0",
  /**
   * Permit holders (worker processes after the candidates): one permit each of the
   * semaphore key `semaphoreKey` (total `semaphorePermits`), written to one of the slots.
   */
  semaphoreHolders: 3,
  semaphorePermits: 2,
  semaphoreKey: "slots",
  semaphoreSlots: ["slot-0", "slot-1"] as const,
  /** The ledger resource's default lease. */
  leaseMs: 2_000,
  /** Tier controller: Redis probe interval and failures before degrading. */
  probeIntervalMs: 500,
  failuresToDegrade: 3,
  successesToRecover: 5,
  /** A run with fewer accepted writes proves too little to count. */
  minAcceptedWrites: 500,
});

/** How long a probe-driven reaction may take: probes × interval (1.5 s). */
export const PROBE_BOUND_MS = STACK_SETTINGS.probeIntervalMs * STACK_SETTINGS.failuresToDegrade;

/** The recovery bound: lease + probe bound + 2 s. */
export const RECOVERY_BOUND_MS = STACK_SETTINGS.leaseMs + PROBE_BOUND_MS + 2_000;
