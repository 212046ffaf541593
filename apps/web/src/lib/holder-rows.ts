import { countdown, formatAge, type Countdown } from "./format-time";

/** A live lease as `holder.list` returns it (the fields the table reads). */
export interface LiveHolder {
  /** `lock` (a mutex lease), `permit`, or a read-write grant's `read` / `write`. */
  readonly kind: string;
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: { readonly clientId: string; readonly ownerId: string };
  readonly reentry: number;
  /** Expiry on the store's clock, ms since the Unix epoch. */
  readonly expiresAt: number;
  /** Lease left when the store answered, in ms. */
  readonly ttlMs: number;
  readonly tier: string;
  /** First grant on the store's clock; null when another server instance granted it. */
  readonly grantedAt: number | null;
  readonly renewals: number | null;
  readonly expectedHoldMs: number | null;
}

/** One row of the live holders table, recomputed every second. */
export interface HolderRow {
  readonly id: string;
  /** `lock`, `permit`, `read` or `write`, as `holder.list` says. */
  readonly kind: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  readonly tier: string;
  /** `4.2 s`; `—` when the grant time is unknown. */
  readonly age: string;
  readonly countdown: Countdown;
  readonly renewals: string;
  readonly reentry: number;
  /** Held past 3× the resource's expectedHoldMs. */
  readonly overdue: boolean;
}

const KIND_ORDER = (kind: string) => (kind === "write" ? 0 : kind === "read" ? 1 : 2);

/**
 * Table rows for live holders. The countdown runs on the browser's monotonic-enough clock
 * from what the store said was left (`ttlMs`) when the answer arrived (`receivedAtMs`),
 * so a skewed browser clock cannot make a lease look longer or shorter; the age is
 * corrected by the offset the same answer reveals (`expiresAt − ttlMs` is the store's now).
 */
export function holderRows(
  holders: readonly LiveHolder[],
  receivedAtMs: number,
  nowMs: number,
): HolderRow[] {
  return holders
    .map((lease) => {
      const storeOffsetMs = lease.expiresAt - lease.ttlMs - receivedAtMs;
      const storeNowMs = nowMs + storeOffsetMs;
      const heldMs = lease.grantedAt === null ? null : storeNowMs - lease.grantedAt;
      const leaseMs =
        lease.grantedAt === null
          ? undefined
          : Math.max(lease.ttlMs, lease.expiresAt - lease.grantedAt);
      return {
        id: lease.lockId,
        kind: lease.kind,
        businessKey: lease.businessKey,
        lockId: lease.lockId,
        fence: lease.fence,
        clientId: lease.holder.clientId,
        ownerId: lease.holder.ownerId,
        tier: lease.tier,
        age: lease.grantedAt === null ? "—" : formatAge(lease.grantedAt, storeNowMs),
        countdown: countdown(receivedAtMs + lease.ttlMs, nowMs, leaseMs),
        renewals: lease.renewals === null ? "—" : String(lease.renewals),
        reentry: lease.reentry,
        overdue:
          heldMs !== null && lease.expectedHoldMs !== null && heldMs > 3 * lease.expectedHoldMs,
      };
    })
    .sort(
      (a, b) =>
        a.businessKey.localeCompare(b.businessKey) ||
        // A key's writer before its readers.
        KIND_ORDER(a.kind) - KIND_ORDER(b.kind),
    );
}
