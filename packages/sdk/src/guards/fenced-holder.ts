import type { Tier } from "@warden/contract";

/** Where a fence guard refused a stale write, for the server's stale-writer telemetry. */
export interface StaleFenceReport {
  /** The fence recorded at the resource, newer than ours; null when the guard could not read it. */
  readonly currentFence: string | null;
  /** Where the guard ran, e.g. `mysql:stock` or `redis:stock:42` (at most 200 characters). */
  readonly target: string;
}

/**
 * What a fence guard needs from a lock: a `Lock` satisfies it, and so does a plain object
 * for a fence handed to another process with the work.
 */
export interface FencedHolder {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  /**
   * Decimal fencing token; null for local-tier locks, which guards refuse
   * (docs/design.md#fail-closed).
   */
  readonly fence: string | null;
  readonly tier: Tier;
  /** Called (fire and forget) when a guard found a newer fence at the resource. */
  reportStaleFence?(report: StaleFenceReport): void;
}
