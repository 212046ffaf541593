import type { ResultSetHeader } from "mysql2/promise";
import { validateLockId, validateLockKey, type LeaseView } from "@warden/contract";
import { factsOf } from "../../store/lease-facts.js";
import type { ForceReleaseInput } from "../../store/lock-store.js";
import { leaseFromRow } from "../lease-row.js";
import { rowsMatched } from "../rows-matched.js";
import { OPERATOR_FORCE_RELEASE } from "../sql/force-release.js";
import { readRow, type MysqlOpContext } from "./mysql-op-context.js";

/**
 * LockStore.forceRelease on MySQL: reads the live grant, then ends exactly that grant by
 * its lockId (never a newer one that took the key meanwhile); reports its facts.
 */
export async function forceReleaseOp(
  ctx: MysqlOpContext,
  input: ForceReleaseInput,
): Promise<LeaseView | null> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const wanted = input.lockId === undefined ? undefined : validateLockId(input.lockId);
  const row = await readRow(ctx, key);
  if (!row || Number(row.live) !== 1 || (wanted !== undefined && row.lock_id !== wanted)) {
    return null;
  }
  const [result] = await ctx.pool.execute<ResultSetHeader>({
    sql: OPERATOR_FORCE_RELEASE,
    values: [key.resource, key.businessKey, row.lock_id],
    timeout: ctx.timeoutMs,
  });
  if (rowsMatched(result) === 0) return null;
  const removed = leaseFromRow(row);
  ctx.events.lock(key, { type: "force-release", ...factsOf(removed) });
  return removed;
}
