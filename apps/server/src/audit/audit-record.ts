import { createHash, randomUUID } from "node:crypto";
import type { StoreEvent } from "@warden/core";
import type { TrackedLease } from "../stats/lease-tracker.js";

/**
 * One audit event as the writer buffers, spools (one JSON line) and inserts it. `id` is
 * made once, before the first attempt, so a batch written twice stores each event once.
 */
export interface AuditRecord {
  readonly id: string;
  readonly type: string;
  readonly tenantId: string | null;
  /** `*` for events that concern no single resource (tier, epoch). */
  readonly resource: string;
  readonly businessKey: string | null;
  readonly lockId: string | null;
  /** Decimal string (u64). */
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  readonly tier: string | null;
  readonly leaseMs: number | null;
  readonly actor: string | null;
  readonly reason: string | null;
  /** When it happened, ms since the Unix epoch. */
  readonly at: number;
  /** Refusals counted in the minute from `at` (a per-minute `refusal` row); else null. */
  readonly count?: number | null;
  /**
   * When the lease the event is about was granted (ms), when known; for the live feed and
   * search (the hold's row keeps it in MySQL, `lock_event` has no such column).
   */
  readonly grantedAt?: number | null;
}

/** How a hold ended, as `lock_hold.end_type` stores it. */
export type HoldEnd = "released" | "force-released" | "expired" | "lapsed";

/**
 * Part of one hold's row (`lock_hold`, docs/decisions/0070): what one instance learned of
 * the hold `lockId` — its grant, its latest renewal, its end, or several of them. Parts
 * of one hold merge in MySQL in any order and any number of times (an upsert keyed by
 * lockId), so the writer may send a part twice and instances need not coordinate.
 * Times are ms since the Unix epoch; unknown fields are null.
 */
export interface HoldPart {
  readonly kind: "hold";
  /** Id of the row if this part creates it: time-ordered from the first fact. */
  readonly id: string;
  readonly lockId: string;
  tenantId: string | null;
  readonly resource: string;
  readonly businessKey: string;
  fence: string | null;
  clientId: string | null;
  ownerId: string | null;
  tier: string | null;
  leaseMs: number | null;
  reentries: number;
  renewals: number;
  grantedAt: number | null;
  renewedAt: number | null;
  renewLeaseMs: number | null;
  expiresAt: number | null;
  endedAt: number | null;
  endType: HoldEnd | null;
  actor: string | null;
  reason: string | null;
  /**
   * What was held: null for a mutex lease, `semaphore` for a permit grant (decision 0196),
   * `read` or `write` for a read-write lock's grant (decision 0199); the row's `kind`
   * column. Absent from parts spooled before it existed: read as null.
   */
  primitive?: HoldPrimitive | null;
  /** Permits a semaphore grant took; null (or absent, in older spool lines) for a lease. */
  permits?: number | null;
}

/** What a hold row is of, besides a mutex lease (null): `lock_hold.kind`. */
export type HoldPrimitive = "semaphore" | "read" | "write";

/**
 * The row id of a hold first written at `atMs`: 48 bits of Unix ms in hex, then the
 * lockId (unique already, so no random bits are needed): time-ordered like
 * {@link timeOrderedId}, at the cost of a string concatenation.
 */
function holdId(lockId: string, atMs: number): string {
  if (lockId.length !== 22) return timeOrderedId(atMs);
  return `${Math.max(0, Math.floor(atMs)).toString(16).padStart(12, "0").slice(-12)}-${lockId}`;
}

/**
 * Ends the hold of `part` at `at` unless the part already has an end (the first reported
 * end stays, as in MySQL); true when this call set it.
 */
export function endHold(
  part: HoldPart,
  type: "released" | "expired" | "force-released",
  at: number,
): boolean {
  if (part.endType !== null) return false;
  part.endType = type;
  part.endedAt = at;
  return true;
}

/** An empty part of the hold `lockId` of a key, to fill in. */
export function holdPart(
  lockId: string,
  tenantId: string | null,
  resource: string,
  businessKey: string,
  at: number,
): HoldPart {
  return {
    kind: "hold",
    id: holdId(lockId, at),
    lockId,
    tenantId,
    resource,
    businessKey,
    fence: null,
    clientId: null,
    ownerId: null,
    tier: null,
    leaseMs: null,
    reentries: 1,
    renewals: 0,
    grantedAt: null,
    renewedAt: null,
    renewLeaseMs: null,
    expiresAt: null,
    endedAt: null,
    endType: null,
    actor: null,
    reason: null,
    primitive: null,
    permits: null,
  };
}

/**
 * The id of the per-minute refusal count of `resource` by one writer: the same for every
 * flush of that minute, so each flush overwrites its own count (idempotent) and never
 * another writer's.
 */
export function minuteCountId(minuteMs: number, writerId: string, resource: string): string {
  const time = Math.max(0, Math.floor(minuteMs)).toString(16).padStart(12, "0").slice(-12);
  const hash = createHash("sha1").update(`${writerId}\0${resource}`).digest("hex");
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hash.slice(0, 3)}-8${hash.slice(3, 6)}-${hash.slice(6, 18)}`;
}

/** Extra facts the server knows about an event: the owning tenant and the grant it ends. */
export interface AuditContext {
  readonly tenantId: string | null;
  readonly lease: TrackedLease | null;
  readonly actor?: string | null;
  readonly reason?: string | null;
}

/**
 * A UUID version 7 for an event at `atMs`: 48 bits of Unix ms first, then random bits.
 * Ids of new events sort after older ones, so the audit table's primary key (the
 * clustered index) grows at its end instead of splitting pages at random spots: random
 * v4 ids made each insert cost MariaDB several times more.
 */
export function timeOrderedId(atMs: number): string {
  const random = randomUUID();
  const time = Math.max(0, Math.floor(atMs)).toString(16).padStart(12, "0").slice(-12);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

/**
 * A new record with a fresh id; unset columns are null. Built as one literal of a fixed
 * shape: spreading defaults and fields into each cost more than the rest of the audit path.
 */
export function auditRecord(
  fields: Partial<AuditRecord> & Pick<AuditRecord, "type" | "resource" | "at">,
): AuditRecord {
  return {
    id: fields.id ?? timeOrderedId(fields.at),
    type: fields.type,
    tenantId: fields.tenantId ?? null,
    resource: fields.resource,
    businessKey: fields.businessKey ?? null,
    lockId: fields.lockId ?? null,
    fence: fields.fence ?? null,
    clientId: fields.clientId ?? null,
    ownerId: fields.ownerId ?? null,
    tier: fields.tier ?? null,
    leaseMs: fields.leaseMs ?? null,
    actor: fields.actor ?? null,
    reason: fields.reason ?? null,
    at: fields.at,
    count: fields.count ?? null,
    grantedAt: fields.grantedAt ?? null,
  };
}

/** Turns a store event into its audit record. */
export function recordOfEvent(event: StoreEvent, context: AuditContext): AuditRecord {
  if (event.type === "epoch") {
    return auditRecord({
      type: "epoch",
      resource: "*",
      tier: event.tier,
      at: event.at,
      reason: `epoch ${event.epoch}: ${event.reason}${event.node ? ` (${event.node})` : ""}`.slice(
        0,
        500,
      ),
    });
  }
  const lease = context.lease;
  const record: Mutable<AuditRecord> = auditRecord({
    type: event.type,
    tenantId: context.tenantId,
    resource: event.resource,
    businessKey: event.businessKey,
    tier: event.tier,
    at: event.at,
    fence: lease?.fence ?? null,
    clientId: lease?.holder.clientId ?? null,
    ownerId: lease?.holder.ownerId ?? null,
    actor: context.actor ?? null,
    reason: context.reason ?? null,
    grantedAt: lease?.grantedAt ?? null,
  });
  switch (event.type) {
    case "grant":
      record.grantedAt ??= event.at;
      record.lockId = event.lockId;
      record.fence = event.fence;
      record.clientId = event.holder.clientId;
      record.ownerId = event.holder.ownerId;
      record.leaseMs = event.leaseMs;
      record.reason = event.reentry > 1 ? `reentry ${event.reentry}` : null;
      break;
    case "refusal":
      record.clientId = event.holder.clientId;
      record.ownerId = event.holder.ownerId;
      record.reason = `held by ${event.heldBy.clientId}/${event.heldBy.ownerId}`.slice(0, 500);
      break;
    case "release":
      record.lockId = event.lockId;
      record.reason = event.released ? null : "reentry left";
      break;
    case "extend":
      record.lockId = event.lockId;
      record.leaseMs = event.leaseMs;
      break;
    case "expired":
      record.lockId = event.lockId;
      break;
    case "force-release":
      record.lockId = event.lockId;
      record.clientId = event.holder.clientId;
      record.ownerId = event.holder.ownerId;
      break;
    case "outcome-unknown":
      record.lockId = event.lockId;
      record.reason = event.cleanedUp ? "cleaned up" : "not cleaned up";
      break;
    case "replication-timeout":
      record.lockId = event.lockId;
      record.reason = event.entryOnly
        ? `re-entry acknowledged by ${event.acknowledged} of ${event.required} replicas; that entry undone, the lease goes on`
        : `acknowledged by ${event.acknowledged} of ${event.required} replicas; undone`;
      break;
  }
  return record;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
