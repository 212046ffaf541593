import { compareFences } from "@warden/contract";
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
 * A blind write guarded by the lock's fence, in ONE conditional UPDATE: the row is written
 * only if its recorded fence is older than ours (or absent), and then records ours. Enough
 * for a write that does not depend on what the row held (a status change,
 * docs/design.md#fenced-writes). NOT enough for read-modify-write: use {@link claimFence} + {@link
 * claimedUpdate}, or {@link versionedUpdate}.
 *
 * `duplicate` means our fence is recorded already: an earlier attempt with this lock did
 * it. One fenced write per lock and row; a second one with the same lock is a duplicate.
 *
 * @throws LockUnavailableError - a local-tier lock (no fence).
 * @throws InvalidArgumentError - bad identifiers, or `where` does not name exactly one row.
 */
export async function fencedUpdate(
  db: SqlExecutor,
  holder: FencedHolder,
  target: MysqlWriteTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const columns = guardColumns(target);
  const set = assignments("set", target.set);
  const where = conditions(target);
  const [result] = await db.execute(
    `UPDATE ${quoteId("table", target.table, true)} SET ${[...set.sql, `${columns.fence} = CAST(? AS UNSIGNED)`, `${columns.lockId} = ?`].join(", ")} WHERE ${where.sql} AND (${columns.fence} IS NULL OR ${columns.fence} < CAST(? AS UNSIGNED))`,
    [...set.params, fence, holder.lockId, ...where.params, fence],
  );
  if (rowsMatched(result) > 0) return { outcome: "applied", currentFence: fence };
  const row = await readGuardRow(db, target, false);
  if (row.fence !== null && compareFences(row.fence, fence) > 0) {
    reportStale(holder, row.fence, targetName(target));
    return { outcome: "stale", currentFence: row.fence };
  }
  if (row.fence === fence) return { outcome: "duplicate", currentFence: fence };
  // Fences only grow, so an older one after our refusal means a writer bypassed the guard.
  return { outcome: "conflict", currentFence: row.fence };
}
