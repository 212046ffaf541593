import { compareFences } from "@warden/contract";
import type { FencedHolder } from "../fenced-holder.js";
import type { GuardResult } from "../guard-result.js";
import { reportStale, requireFence } from "../require-fence.js";
import type { MysqlGuardTarget, SqlExecutor } from "./mysql-guard-types.js";
import { readGuardRow } from "./read-guard-row.js";
import { conditions, guardColumns, quoteId, rowsMatched, targetName } from "./sql-parts.js";

/**
 * Read-modify-write, step 1: claims the row for this lock (its fence and lockId) BEFORE
 * the caller reads it. A fence check alone does not protect read-modify-write: an old
 * holder, paused between its read and its write, can write after the new holder has read,
 * and both writes pass an increasing-fence check in order — one update is lost. Once the
 * new holder has claimed the row, the old holder's {@link claimedUpdate} finds the claim
 * gone and comes back `stale`.
 *
 * Then read the row, compute, and write with {@link claimedUpdate}. `duplicate` means this
 * lock had claimed the row already (go on).
 *
 * @throws LockUnavailableError - a local-tier lock (no fence).
 * @throws InvalidArgumentError - bad identifiers, or `where` does not name exactly one row.
 */
export async function claimFence(
  db: SqlExecutor,
  holder: FencedHolder,
  target: MysqlGuardTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const columns = guardColumns(target);
  const where = conditions(target);
  const [result] = await db.execute(
    `UPDATE ${quoteId("table", target.table, true)} SET ${columns.fence} = CAST(? AS UNSIGNED), ${columns.lockId} = ? WHERE ${where.sql} AND (${columns.fence} IS NULL OR ${columns.fence} < CAST(? AS UNSIGNED))`,
    [fence, holder.lockId, ...where.params, fence],
  );
  if (rowsMatched(result) > 0) return { outcome: "applied", currentFence: fence };
  const row = await readGuardRow(db, target, false);
  if (row.fence === fence && row.lockId === holder.lockId) {
    return { outcome: "duplicate", currentFence: fence };
  }
  if (row.fence !== null && compareFences(row.fence, fence) >= 0) {
    reportStale(holder, row.fence, targetName(target));
    return { outcome: "stale", currentFence: row.fence };
  }
  return { outcome: "conflict", currentFence: row.fence };
}
