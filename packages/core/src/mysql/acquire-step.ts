import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import {
  LockUnavailableError,
  FENCE_LAYOUT,
  type AcquireResult,
  type Holder,
  type LockKey,
} from "@warden/contract";
import type { StoreEventEmitter } from "../events/event-emitter.js";
import { retryDeadlocks } from "./deadlock-retry.js";
import { leaseFromRow, type LeaseRow } from "./lease-row.js";
import {
  ACQUIRE_LOCK,
  ACQUIRE_LOCK_DELAYED,
  ACQUIRE_LOCK_FAIR,
  ACQUIRE_LOCK_FAIR_DELAYED,
  ACQUIRE_RESULTS,
  COUNTER_HEADROOM,
} from "./sql/acquire-lock.js";
import { QUEUED_HOLDER, type FairWait } from "../store/fair-wait.js";
import { LOCK_DELAY_HOLDER } from "../store/lock-store.js";
import { READ_BLOCKERS, READ_LEASE } from "./sql/read-lease.js";

/** What one acquire attempt needs from its store. */
export interface AcquireContext {
  readonly pool: Pool;
  readonly timeoutMs: number;
  readonly deadlockAttempts: number;
  readonly events: StoreEventEmitter;
}

/** One attempt's outcome: an answer for the caller, or a reason to renew the epoch and retry. */
export type AcquireStep =
  | { readonly kind: "answer"; readonly result: AcquireResult }
  | { readonly kind: "renew-epoch"; readonly reason: string }
  | { readonly kind: "retry" }
  | { readonly kind: "lost" };

interface AheadRow extends RowDataPacket {
  ahead: number | string | null;
}

/** Who a refusal names when a mirrored Redis lease blocks the key (the mirror has no holder). */
export const REDIS_MIRROR_HOLDER = "redis-lease-mirror";

/**
 * Runs the acquire statement once and turns its affected-row count into the answer. The
 * statement and the read of the key's row travel in one round trip; the read that says
 * which guard failed runs only when a refused key has no live holder. The reads only
 * report (fence and expiry of a grant, who holds a refused key); the decision was the
 * statement's.
 */
export async function acquireStep(
  ctx: AcquireContext,
  key: LockKey,
  holder: Holder,
  leaseMs: number,
  lockId: string,
  fair?: FairWait,
  lockDelayMs = 0,
): Promise<AcquireStep> {
  const { resource, businessKey } = key;
  const decide = [
    resource,
    businessKey,
    lockId,
    holder.clientId,
    holder.ownerId,
    leaseMs,
    lockDelayMs,
  ];
  const mirror = [resource, businessKey];
  const report = [resource, businessKey];
  const waiterId = fair?.waiterId ?? "";
  const values = fair
    ? [
        ...[resource, businessKey],
        ...[resource, businessKey, waiterId, fair.heartbeatMs, waiterId],
        ...[resource, businessKey, resource, businessKey, waiterId],
        ...[resource, businessKey, holder.clientId, holder.ownerId],
        ...decide,
        ...mirror,
        ...[resource, businessKey, waiterId],
        ...report,
      ]
    : [...decide, ...mirror, ...report];
  const at = fair ? ACQUIRE_RESULTS.fair : ACQUIRE_RESULTS.plain;
  const outcome = await retryDeadlocks(
    () =>
      ctx.pool.query<RowDataPacket[][]>({
        sql: fair
          ? lockDelayMs > 0
            ? ACQUIRE_LOCK_FAIR_DELAYED
            : ACQUIRE_LOCK_FAIR
          : lockDelayMs > 0
            ? ACQUIRE_LOCK_DELAYED
            : ACQUIRE_LOCK,
        values,
        timeout: ctx.timeoutMs,
      }),
    ctx.deadlockAttempts,
  );
  if (!outcome.ok) return refusalFrom(ctx, key, holder, await readRow(ctx, key));
  // A multi-statement reply: one result per statement (see ACQUIRE_RESULTS).
  const results = outcome.value[0] as unknown as unknown[];
  const inserted = results[at.decision] as ResultSetHeader;
  const row = (results[at.report] as (LeaseRow & { delay_left_ms?: string | number })[])[0];
  const affected = inserted.affectedRows;
  if (affected === 0) {
    if (row && Number(row.live) === 1) return refusalFrom(ctx, key, holder, row);
    // Held back by the last grant's lock-delay (docs/decisions/0175); a fair caller's place
    // was kept.
    const delayLeftMs = Number(row?.delay_left_ms ?? 0);
    if (lockDelayMs > 0 && delayLeftMs > 0) {
      return refuse(ctx, key, holder, LOCK_DELAY_HOLDER, delayLeftMs);
    }
    const ahead = at.ahead < 0 ? 0 : Number((results[at.ahead] as AheadRow[])[0]?.ahead ?? 0);
    if (ahead > 0) return refuse(ctx, key, holder, QUEUED_HOLDER, 0);
    return blockedStep(ctx, key, holder);
  }
  if (!row) return { kind: "lost" };
  const mine = row.lock_id === lockId;
  const reentered = !mine && row.client_id === holder.clientId && row.owner_id === holder.ownerId;
  // A grant whose short lease already ended before this report is still reported, with
  // ttlMs 0, so the caller sees it as lost at once; a row that no longer carries our grant
  // cannot tell our fence, so that outcome is unknown.
  if (!mine && (!reentered || Number(row.live) !== 1)) return { kind: "lost" };
  const lease = leaseFromRow(row);
  ctx.events.lock(key, {
    type: "grant",
    lockId: lease.lockId,
    fence: lease.fence,
    holder: lease.holder,
    leaseMs,
    reentry: lease.reentry,
    grantedAt: lease.grantedAt,
    renewals: lease.renewals,
  });
  return { kind: "answer", result: { ...lease, granted: true, reentered } };
}

async function readRow(ctx: AcquireContext, key: LockKey): Promise<LeaseRow | undefined> {
  const [rows] = await ctx.pool.execute<LeaseRow[]>({
    sql: READ_LEASE,
    values: [key.resource, key.businessKey],
    timeout: ctx.timeoutMs,
  });
  return rows[0];
}

/** A refusal naming no holder: the key was held a moment ago and is contended ("busy"). */
export function busyRefusal(
  ctx: AcquireContext,
  key: LockKey,
  holder: Holder,
): Extract<AcquireStep, { kind: "answer" }> {
  return refuse(ctx, key, holder, { clientId: "", ownerId: "" }, 0);
}

function refusalFrom(
  ctx: AcquireContext,
  key: LockKey,
  holder: Holder,
  row: LeaseRow | undefined,
): AcquireStep {
  // A persistent deadlock with nobody holding the key: a plain "busy, try again".
  const live = row !== undefined && Number(row.live) === 1;
  const heldBy = live
    ? { clientId: row.client_id, ownerId: row.owner_id }
    : { clientId: "", ownerId: "" };
  return refuse(ctx, key, holder, heldBy, live ? Number(row.ttl_ms) : 0);
}

function refuse(
  ctx: AcquireContext,
  key: LockKey,
  holder: Holder,
  heldBy: Holder,
  ttlMs: number,
): Extract<AcquireStep, { kind: "answer" }> {
  ctx.events.lock(key, { type: "refusal", holder, heldBy });
  return { kind: "answer", result: { granted: false, holder: heldBy, ttlMs, tier: "mysql" } };
}

interface BlockersRow extends RowDataPacket {
  tier_epoch: string;
  durable_epoch: string;
  counter_used: string | null;
  shared_tier: string | null;
  mirror_lock_id: string | null;
  mirror_ttl_ms: string | null;
}

async function blockedStep(
  ctx: AcquireContext,
  key: LockKey,
  holder: Holder,
): Promise<AcquireStep> {
  const [rows] = await ctx.pool.execute<BlockersRow[]>({
    sql: READ_BLOCKERS,
    values: [key.resource, key.businessKey],
    timeout: ctx.timeoutMs,
  });
  const blockers = rows[0];
  if (blockers?.shared_tier && blockers.shared_tier !== "mysql") {
    throw new LockUnavailableError(
      `the fleet's tier is now ${blockers.shared_tier}; the MySQL tier no longer grants`,
      { reason: "tier-change" },
    );
  }
  if (blockers?.mirror_lock_id) {
    const heldBy = { clientId: REDIS_MIRROR_HOLDER, ownerId: blockers.mirror_lock_id };
    return refuse(ctx, key, holder, heldBy, Number(blockers.mirror_ttl_ms ?? 0));
  }
  const tierEpoch = Number(blockers?.tier_epoch ?? 0);
  if (tierEpoch === 0 || tierEpoch < Number(blockers?.durable_epoch ?? 0)) {
    return {
      kind: "renew-epoch",
      reason: tierEpoch === 0 ? "first epoch" : "durable epoch moved on",
    };
  }
  if (Number(blockers?.counter_used ?? 0) > FENCE_LAYOUT.maxCounter - COUNTER_HEADROOM) {
    return { kind: "renew-epoch", reason: "fence counter exhausted" };
  }
  // The row changed between the statement and the report (e.g. its lease just ended).
  return { kind: "retry" };
}
