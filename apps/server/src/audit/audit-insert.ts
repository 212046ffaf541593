import type { Pool } from "mysql2/promise";
import type { AuditRecord } from "./audit-record.js";

const COLUMNS = [
  "id",
  "type",
  "tenant_id",
  "resource",
  "business_key",
  "lock_id",
  "fence",
  "client_id",
  "owner_id",
  "tier",
  "lease_ms",
  "actor",
  "reason",
  "at",
] as const;

// One multi-row statement per batch; IGNORE makes a replayed event a no-op (idempotent by
// id). Raw mysql2 rather than Prisma: this runs for every lock event, and Prisma's
// per-query cost starved the lock path of CPU on a 2-core box (docs/decisions/0013).
const INSERT = `INSERT IGNORE INTO lock_event (${COLUMNS.join(", ")}) VALUES ?`;

/** Inserts a batch of audit records; returns how many were new. */
export async function insertAuditBatch(pool: Pool, batch: readonly AuditRecord[]): Promise<number> {
  if (batch.length === 0) return 0;
  const rows = batch.map((r) => [
    r.id,
    r.type,
    r.tenantId,
    r.resource,
    r.businessKey,
    r.lockId,
    r.fence,
    r.clientId,
    r.ownerId,
    r.tier,
    r.leaseMs,
    r.actor,
    r.reason,
    new Date(r.at),
  ]);
  const [result] = await pool.query(INSERT, [rows]);
  return (result as { affectedRows: number }).affectedRows;
}
