import type { RowDataPacket } from "mysql2/promise";
import { validateLockId, validateLockKey } from "@warden/contract";
import type { LeaseFacts } from "../../store/lease-facts.js";
import type { ReleaseInput, ReleaseResult } from "../../store/lock-store.js";
import { RELEASE_LOCK } from "../sql/release-lock.js";
import { notHolder, updateAndReport, type MysqlOpContext } from "./mysql-op-context.js";

/** The row RELEASE_LOCK's SELECT returns: the facts the UPDATE copied, and who holds now. */
export interface ReleasedRow extends RowDataPacket {
  reentry: number | string | null;
  fence: string | null;
  client_id: string | null;
  owner_id: string | null;
  renewals: number | string | null;
  granted_ms: string | null;
  live_lock_id: string | null;
}

/** LockStore.release on MySQL: one entry of the grant; reports the lease it acted on. */
export async function releaseOp(ctx: MysqlOpContext, input: ReleaseInput): Promise<ReleaseResult> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const lockId = validateLockId(input.lockId);
  const { matched, row } = await updateAndReport<ReleasedRow>(
    ctx,
    "release",
    key,
    lockId,
    RELEASE_LOCK,
    [key.resource, key.businessKey, lockId, key.resource, key.businessKey],
  );
  if (!matched || !row) throw notHolder(ctx, key, lockId, row?.live_lock_id ?? null);
  const reentry = Number(row.reentry);
  const lease: LeaseFacts = {
    lockId,
    fence: row.fence,
    holder: { clientId: row.client_id ?? "", ownerId: row.owner_id ?? "" },
    grantedAt: Number(row.granted_ms),
    renewals: Number(row.renewals),
  };
  const released = reentry === 0;
  ctx.events.lock(key, { type: "release", ...lease, released, reentry });
  return { released, reentry, lease };
}
