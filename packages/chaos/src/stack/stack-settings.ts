/**
 * Fixed settings of the chaos stack. Durations in ms. Short leases and a fast probe keep
 * recoveries, and so the run, short; the bound the checker applies follows from them.
 */
export const STACK_SETTINGS = Object.freeze({
  /** Worker processes, each an SDK client of one of the two servers. */
  workers: 8,
  /** Ledger accounts the workers contend for: two workers per account on average. */
  accounts: ["acct-0", "acct-1", "acct-2", "acct-3"] as const,
  initialBalance: 1_000,
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
