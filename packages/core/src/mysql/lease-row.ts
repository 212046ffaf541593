import type { RowDataPacket } from "mysql2/promise";
import type { LeaseView, LockKey } from "@warden/contract";

/** A `mysql_lock` row as the statements in sql/ select it (see LEASE_COLUMNS). */
export interface LeaseRow extends RowDataPacket {
  id: string;
  resource: string;
  business_key: string;
  lock_id: string;
  client_id: string;
  owner_id: string;
  fence: string;
  reentry: number;
  renewals: number;
  granted_ms: string;
  expires_ms: string;
  ttl_ms: string;
  live?: number;
}

/** The lease a row describes, times on the database clock. */
export function leaseFromRow(row: LeaseRow): LeaseView {
  const key: LockKey = { resource: row.resource, businessKey: row.business_key };
  return {
    ...key,
    lockId: row.lock_id,
    fence: row.fence,
    holder: { clientId: row.client_id, ownerId: row.owner_id },
    reentry: Number(row.reentry),
    grantedAt: Number(row.granted_ms),
    renewals: Number(row.renewals),
    expiresAt: Number(row.expires_ms),
    ttlMs: Number(row.ttl_ms),
    tier: "mysql",
  };
}
