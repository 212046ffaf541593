import { compareFences, InvalidArgumentError } from "@warden/contract";
import type { FencedHolder } from "../fenced-holder.js";
import type { GuardResult } from "../guard-result.js";
import { reportStale, requireFence } from "../require-fence.js";
import type { MysqlWriteTarget, SqlExecutor } from "./mysql-guard-types.js";
import { readGuardRow } from "./read-guard-row.js";
import {
  assignments,
  conditions,
  guardColumns,
  quoteId,
  rowsMatched,
  targetName,
} from "./sql-parts.js";

/**
 * Read-modify-write, step 2: writes the row only while it still carries this lock's
 * claim (fence AND lockId), in one conditional UPDATE. `stale` means a newer holder
 * claimed the row after our claim: our read may be outdated, so nothing was written.
 * May be called several times under one claim.
 *
 * @throws InvalidArgumentError - the row carries no claim of this lock (call
 *   {@link claimFence} first), bad identifiers, or `where` does not name exactly one row.
 * @throws LockUnavailableError - a local-tier lock (no fence).
 */
export async function claimedUpdate(
  db: SqlExecutor,
  holder: FencedHolder,
  target: MysqlWriteTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const columns = guardColumns(target);
  const set = assignments("set", target.set);
  if (set.sql.length === 0) throw new InvalidArgumentError("set", "names no column to write");
  const where = conditions(target);
  const [result] = await db.execute(
    `UPDATE ${quoteId("table", target.table, true)} SET ${set.sql.join(", ")} WHERE ${where.sql} AND ${columns.fence} = CAST(? AS UNSIGNED) AND ${columns.lockId} = ?`,
    [...set.params, ...where.params, fence, holder.lockId],
  );
  if (rowsMatched(result) > 0) return { outcome: "applied", currentFence: fence };
  const row = await readGuardRow(db, target, false);
  if (row.fence !== null && compareFences(row.fence, fence) >= 0) {
    reportStale(holder, row.fence, targetName(target));
    return { outcome: "stale", currentFence: row.fence };
  }
  throw new InvalidArgumentError(
    "fence",
    `${target.table} row is not claimed by lock ${holder.lockId}: call claimFence before reading it`,
  );
}
