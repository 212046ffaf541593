import type { Pool } from "mysql2/promise";
import type { AuditRecord, HoldPart } from "./audit-record.js";

const EVENT_COLUMNS = [
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
  "count",
] as const;

// One multi-row statement per batch, idempotent by id: a replayed event changes nothing,
// a replayed per-minute refusal count keeps the larger count. Not INSERT IGNORE, which
// would store a bad value as a zero instead of failing. Raw mysql2 rather than Prisma:
// Prisma's per-query cost starved the lock path of CPU on a 2-core box
// (docs/decisions/0013).
const INSERT_EVENTS =
  `INSERT INTO lock_event (${EVENT_COLUMNS.join(", ")}) VALUES ? ON DUPLICATE KEY UPDATE ` +
  "reason = IF(VALUES(count) IS NULL, reason, VALUES(reason)), " +
  "count = IF(VALUES(count) IS NULL, count, GREATEST(COALESCE(count, 0), VALUES(count)))";

const HOLD_COLUMNS = [
  "id",
  "lock_id",
  "tenant_id",
  "resource",
  "business_key",
  "fence",
  "client_id",
  "owner_id",
  "tier",
  "lease_ms",
  "reentries",
  "renewals",
  "granted_at",
  "renewed_at",
  "renew_lease_ms",
  "expires_at",
  "ended_at",
  "end_type",
  "actor",
  "reason",
  "kind",
  "permits",
] as const;

// A reported end (release, force-release, expiry seen by a store) wins over none and over
// `lapsed` (the audit's own inference); a later renewal reopens a hold closed as lapsed.
const TAKES_END = "(VALUES(end_type) IS NOT NULL AND (end_type IS NULL OR end_type = 'lapsed'))";

// Merges a part into the hold's row. MariaDB evaluates the assignments left to right and
// a later one sees the columns an earlier one changed, so the order matters: actor,
// reason and ended_at read the old end_type; end_type reads the new ended_at;
// renew_lease_ms reads the old renewed_at.
const INSERT_HOLDS_HEAD = `INSERT INTO lock_hold (${HOLD_COLUMNS.join(", ")}) VALUES `;
const INSERT_HOLDS_TAIL =
  " ON DUPLICATE KEY UPDATE " +
  [
    "tenant_id = COALESCE(tenant_id, VALUES(tenant_id))",
    "fence = COALESCE(fence, VALUES(fence))",
    "client_id = COALESCE(client_id, VALUES(client_id))",
    "owner_id = COALESCE(owner_id, VALUES(owner_id))",
    "tier = COALESCE(tier, VALUES(tier))",
    "lease_ms = COALESCE(lease_ms, VALUES(lease_ms))",
    "kind = COALESCE(kind, VALUES(kind))",
    "permits = COALESCE(permits, VALUES(permits))",
    "reentries = GREATEST(reentries, VALUES(reentries))",
    "renewals = GREATEST(renewals, VALUES(renewals))",
    "granted_at = COALESCE(granted_at, VALUES(granted_at))",
    "renew_lease_ms = IF(VALUES(renewed_at) IS NOT NULL AND (renewed_at IS NULL OR VALUES(renewed_at) > renewed_at), VALUES(renew_lease_ms), renew_lease_ms)",
    "renewed_at = GREATEST(COALESCE(renewed_at, VALUES(renewed_at)), COALESCE(VALUES(renewed_at), renewed_at))",
    "expires_at = GREATEST(COALESCE(expires_at, VALUES(expires_at)), COALESCE(VALUES(expires_at), expires_at))",
    `actor = IF(${TAKES_END}, VALUES(actor), actor)`,
    `reason = IF(${TAKES_END}, VALUES(reason), reason)`,
    `ended_at = CASE WHEN ${TAKES_END} THEN VALUES(ended_at) WHEN end_type = 'lapsed' AND VALUES(expires_at) > ended_at THEN NULL ELSE ended_at END`,
    `end_type = CASE WHEN ${TAKES_END} THEN VALUES(end_type) WHEN ended_at IS NULL THEN NULL ELSE end_type END`,
  ].join(", ");

/** The holds' upsert with a `?` for its rows, as mysql2 would format it (tests compare). */
export const INSERT_HOLDS = `${INSERT_HOLDS_HEAD}?${INSERT_HOLDS_TAIL}`;

// What mysql2 (sqlstring) escapes in a string literal, and how.
// eslint-disable-next-line no-control-regex -- exactly the characters sqlstring escapes
const SPECIAL = /[\0\b\t\n\r\x1a"'\\]/;
// eslint-disable-next-line no-control-regex -- the same, all of them
const SPECIAL_ALL = /[\0\b\t\n\r\x1a"'\\]/g;
const ESCAPES: Readonly<Record<string, string>> = {
  "\0": "\\0",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  "\x1a": "\\Z",
  '"': '\\"',
  "'": "\\'",
  "\\": "\\\\",
};

function text(value: string | null): string {
  if (value === null) return "NULL";
  return SPECIAL.test(value) ? `'${value.replace(SPECIAL_ALL, (c) => ESCAPES[c]!)}'` : `'${value}'`;
}

function int(value: number | null): string {
  return value === null ? "NULL" : String(value);
}

function pad(value: number, width: number): string {
  let digits = String(value);
  while (digits.length < width) digits = `0${digits}`;
  return digits;
}

/** A time in ms as mysql2 sends a `Date` to a UTC session: `'YYYY-MM-DD HH:MM:SS.mmm'`. */
function utcDatetime(ms: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return "NULL";
  return (
    `'${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)} ` +
    `${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.` +
    `${pad(date.getUTCMilliseconds(), 3)}'`
  );
}

/**
 * The `VALUES` list of a batch of hold parts, byte for byte what mysql2 makes of the rows
 * with `timezone: "Z"` (a test compares), written directly: no row arrays and no `Date`
 * per time, and each distinct time formatted once per batch (a flush's rows share most of
 * their milliseconds). About 0.6 µs less per row than mysql2's formatting, on the server's
 * CPU for every lock cycle (docs/decisions/0047). A part spooled before `primitive` and
 * `permits` existed has neither: both go as NULL, as for a mutex hold.
 */
export function holdValues(batch: readonly HoldPart[]): string {
  const times = new Map<number, string>();
  const time = (ms: number | null): string => {
    if (ms === null) return "NULL";
    let literal = times.get(ms);
    if (literal === undefined) {
      literal = utcDatetime(ms);
      times.set(ms, literal);
    }
    return literal;
  };
  let sql = "";
  for (let index = 0; index < batch.length; index++) {
    const p = batch[index]!;
    sql +=
      `${index === 0 ? "" : ", "}(${text(p.id)}, ${text(p.lockId)}, ${text(p.tenantId)}, ` +
      `${text(p.resource)}, ${text(p.businessKey)}, ${text(p.fence)}, ${text(p.clientId)}, ` +
      `${text(p.ownerId)}, ${text(p.tier)}, ${int(p.leaseMs)}, ${int(p.reentries)}, ` +
      `${int(p.renewals)}, ${time(p.grantedAt)}, ${time(p.renewedAt)}, ${int(p.renewLeaseMs)}, ` +
      `${time(p.expiresAt)}, ${time(p.endedAt)}, ${text(p.endType)}, ${text(p.actor)}, ` +
      `${text(p.reason)}, ${text(p.primitive ?? null)}, ${int(p.permits ?? null)})`;
  }
  return sql;
}

/** Inserts a batch of audit events; returns the rows MySQL reports as affected. */
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
    r.count ?? null,
  ]);
  const [result] = await pool.query(INSERT_EVENTS, [rows]);
  return (result as { affectedRows: number }).affectedRows;
}

/** Merges a batch of hold parts into `lock_hold`; returns the rows MySQL reports as affected. */
export async function insertHoldBatch(pool: Pool, batch: readonly HoldPart[]): Promise<number> {
  if (batch.length === 0) return 0;
  // No values: mysql2 sends the text as it is (it replaces no `?` without values).
  const [result] = await pool.query(INSERT_HOLDS_HEAD + holdValues(batch) + INSERT_HOLDS_TAIL);
  return (result as { affectedRows: number }).affectedRows;
}

/**
 * Closes holds whose lease ended before `beforeMs` with no end reported by any instance
 * (the holder's instance crashed, or nobody released): each becomes a `lapsed` end at its
 * expiry. Safe to run on every instance at once. Returns how many it closed.
 */
export async function closeLapsedHolds(
  pool: Pool,
  beforeMs: number,
  limit = 1_000,
): Promise<number> {
  const [result] = await pool.query(
    "UPDATE lock_hold SET ended_at = expires_at, end_type = 'lapsed' " +
      "WHERE ended_at IS NULL AND expires_at < ? LIMIT ?",
    [new Date(beforeMs), limit],
  );
  return (result as { affectedRows: number }).affectedRows;
}
