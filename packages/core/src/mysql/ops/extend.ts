import { validateLeaseMs, validateLockId, validateLockKey, type LeaseView } from "@warden/contract";
import { factsOf } from "../../store/lease-facts.js";
import type { ExtendInput } from "../../store/lock-store.js";
import { leaseFromRow, type LeaseRow } from "../lease-row.js";
import { EXTEND_LOCK } from "../sql/extend-lock.js";
import { notHolder, updateAndReport, type MysqlOpContext } from "./mysql-op-context.js";

/** LockStore.extend on MySQL: a new remaining lease for the grant, renewal counted. */
export async function extendOp(ctx: MysqlOpContext, input: ExtendInput): Promise<LeaseView> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const lockId = validateLockId(input.lockId);
  const leaseMs = validateLeaseMs(input.leaseMs);
  const { matched, row } = await updateAndReport<LeaseRow>(
    ctx,
    "extend",
    key,
    lockId,
    EXTEND_LOCK,
    [leaseMs, key.resource, key.businessKey, lockId, key.resource, key.businessKey],
  );
  const live = row !== undefined && Number(row.live) === 1;
  // Extended, but the lease (a lease of a few ms) ended before the read: as lost as expired.
  if (!matched || row?.lock_id !== lockId || !live) {
    throw notHolder(ctx, key, lockId, live ? row.lock_id : null);
  }
  const lease = leaseFromRow(row);
  ctx.events.lock(key, { type: "extend", ...factsOf(lease), leaseMs, expiresAt: lease.expiresAt });
  return lease;
}
