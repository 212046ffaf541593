import type { Holder, LeaseView } from "@warden/contract";

/**
 * What a store keeps with every lease, next to its expiry: enough for any server instance
 * to report and audit the grant (fence, holder, when it was granted, how often it was
 * renewed) without memory of its own. Stored in the Redis lease string, the `mysql_lock`
 * row and the local store's entry.
 */
export interface LeaseFacts {
  readonly lockId: string;
  /** Decimal fence; null on the local tier, which has none. */
  readonly fence: string | null;
  readonly holder: Holder;
  /** When the grant was made, in ms since the Unix epoch on the store's clock. */
  readonly grantedAt: number;
  /** Extends of this grant so far (re-entries are not renewals). */
  readonly renewals: number;
}

/** The facts of a lease view. */
export function factsOf(lease: LeaseView): LeaseFacts {
  return {
    lockId: lease.lockId,
    fence: lease.fence,
    holder: lease.holder,
    grantedAt: lease.grantedAt,
    renewals: lease.renewals,
  };
}
