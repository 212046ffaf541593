import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { LockUnavailableError } from "../errors/lock-unavailable-error.js";
import type { LockEvent } from "../events/store-event.js";
import { FENCE_LAYOUT } from "../fence/fence-layout.js";
import type { AcquireResult, Holder, LockKey } from "../store/types.js";
import { retryDeadlocks } from "./deadlock-retry.js";
import { leaseFromRow, type LeaseRow } from "./lease-row.js";
import { ACQUIRE_LOCK, COUNTER_HEADROOM } from "./sql/acquire-lock.js";
import { READ_BLOCKERS, READ_LEASE } from "./sql/read-lease.js";

/** What one acquire attempt needs from its store. */
export interface AcquireContext {
  readonly pool: Pool;
  readonly timeoutMs: number;
  readonly deadlockAttempts: number;
  readonly emit: (event: LockEvent) => void;
}

/** One attempt's outcome: an answer for the caller, or a reason to renew the epoch and retry. */
export type AcquireStep =
  | { readonly kind: "answer"; readonly result: AcquireResult }
  | { readonly kind: "renew-epoch"; readonly reason: string }
  | { readonly kind: "retry" }
  | { readonly kind: "lost" };

/** Who a refusal names when a mirrored Redis lease blocks the key (the mirror has no holder). */
export const REDIS_MIRROR_HOLDER = "redis-lease-mirror";

/**
 * Runs the acquire statement once and turns its affected-row count into the answer. The
 * SELECTs that follow only report (the fence and expiry of a grant, who holds a refused
 * key, which guard failed); the decision was the statement's.
 */
export async function acquireStep(
  ctx: AcquireContext,
  key: LockKey,
  holder: Holder,
  leaseMs: number,
  lockId: string,
): Promise<AcquireStep> {
  const params = [key.resource, key.businessKey, lockId, holder.clientId, holder.ownerId, leaseMs];
  const outcome = await retryDeadlocks(
    () =>
      ctx.pool.execute<ResultSetHeader>({
        sql: ACQUIRE_LOCK,
        values: [...params, key.resource, key.businessKey],
        timeout: ctx.timeoutMs,
      }),
    ctx.deadlockAttempts,
  );
  const row = await readRow(ctx, key);
  if (!outcome.ok) return refusalFrom(ctx, key, holder, row);
  const affected = outcome.value[0].affectedRows;
  if (affected === 0) {
    if (row && Number(row.live) === 1) return refusalFrom(ctx, key, holder, row);
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
  ctx.emit({
    type: "grant",
    resource: key.resource,
    businessKey: key.businessKey,
    tier: "mysql",
    at: Date.now(),
    lockId: lease.lockId,
    fence: lease.fence,
    holder: lease.holder,
    leaseMs,
    reentry: lease.reentry,
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
  ctx.emit({
    type: "refusal",
    resource: key.resource,
    businessKey: key.businessKey,
    tier: "mysql",
    at: Date.now(),
    holder,
    heldBy,
  });
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
