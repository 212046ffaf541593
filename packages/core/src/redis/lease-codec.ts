import type { Holder, LeaseView, LockKey } from "@warden/contract";

/**
 * What the stored lease string `lockId|fence|reentry|grantedAt|renewals|clientId|ownerId`
 * says about one grant (ownerId last: it is the only part that may contain `|`).
 */
export interface StoredLease {
  readonly lockId: string;
  readonly fence: string;
  readonly reentry: number;
  /** Redis clock, ms since the Unix epoch, when the grant was made. */
  readonly grantedAt: number;
  readonly renewals: number;
  readonly holder: Holder;
}

/** Splits a stored lease string into its parts. */
export function parseLease(value: string): StoredLease {
  const [lockId = "", fence = "", reentry = "0", grantedAt = "0", renewals = "0", clientId = ""] =
    value.split("|", 6);
  // ownerId is everything after the sixth separator, `|` included.
  let cut = -1;
  for (let i = 0; i < 6; i += 1) cut = value.indexOf("|", cut + 1);
  return {
    lockId,
    fence,
    reentry: Number(reentry),
    grantedAt: Number(grantedAt),
    renewals: Number(renewals),
    holder: { clientId, ownerId: cut < 0 ? "" : value.slice(cut + 1) },
  };
}

/** The lease view of a stored lease string with its remaining time on the Redis clock. */
export function decodeLease(key: LockKey, value: string, pttlMs: number, nowMs: number): LeaseView {
  const lease = parseLease(value);
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId: lease.lockId,
    fence: lease.fence,
    holder: lease.holder,
    reentry: lease.reentry,
    grantedAt: lease.grantedAt,
    renewals: lease.renewals,
    ttlMs: pttlMs,
    expiresAt: nowMs + pttlMs,
    tier: "redis",
  };
}
