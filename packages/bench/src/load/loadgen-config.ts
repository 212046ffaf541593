import type { VariantName } from "../plan/variants.js";

/** Everything the load generator needs to open the variants, sent once at start. */
export interface LoadgenConfig {
  readonly variants: readonly VariantName[];
  /** Redis for raw-ioredis and core-redis (a logical db of its own). */
  readonly redisUrl: string;
  /** Migrated database whose `fence_epoch` the in-process core store binds to. */
  readonly coreDbUrl: string;
  /** The application database (raw-mysql's table, the fenced rows). */
  readonly appDbUrl: string;
  readonly serverUrl: string;
  /** Every server instance's URL, `serverUrl` first (one entry without a fleet variant). */
  readonly serverUrls: readonly string[];
  readonly apiKey: string;
  /** Resource names on the server, per server-backed variant and for the memory hold. */
  readonly resources: {
    readonly sdk: string;
    /** A `fair` resource: acquires go through the store's per-key queue. */
    readonly sdkFair: string;
    /** A `semaphore` resource with 1 permit per key (sdk-semaphore). */
    readonly sdkSemaphore: string;
    /** A fair `semaphore` resource with 1 permit per key (sdk-semaphore-fair). */
    readonly sdkSemaphoreFair: string;
    /** A read-write lock (`rwlock`) resource (sdk-read-lock). */
    readonly sdkReadLock: string;
    readonly sdkMysql: string;
    readonly fenced: string;
    readonly hold: string;
  };
  /** Lease of every cycle's lock, in ms. */
  readonly leaseMs: number;
  /** Lease of the locks held for the memory measurement, in ms (the SDK renews them). */
  readonly holdLeaseMs: number;
}

/** What the coordinator asks the load generator to do. */
export type LoadgenRequest =
  | {
      readonly kind: "run";
      readonly variant: VariantName;
      readonly concurrency: number;
      readonly keys: number;
      readonly durationMs: number;
    }
  | {
      readonly kind: "hold";
      readonly locks: number;
      readonly waiters: number;
      readonly waiterClients: number;
    }
  /** Counts the holding clients' bulk renewals over one renewal period (after a `hold`). */
  | { readonly kind: "renewals" };

/** The answer to a `hold` request. */
export interface HoldReport {
  /** Locks asked for. */
  readonly requested: number;
  /** Locks granted before the acquire budget ran out. */
  readonly granted: number;
  /** Locks still held (renewed by their clients) when the report was made. */
  readonly locks: number;
  /** Waiters the server listed as queued. */
  readonly waiters: number;
  /** Time it took to take the locks, in ms. */
  readonly acquireMs: number;
  /** SDK clients holding the locks (and queueing the waiters). */
  readonly clients: number;
}

/** The answer to a `renewals` request: bulk renewal commands and renewed leases over `windowMs`. */
export interface RenewalReport {
  readonly windowMs: number;
  readonly commands: number;
  readonly leases: number;
}
