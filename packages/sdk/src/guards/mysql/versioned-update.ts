import { compareFences } from "@warden/contract";
import type { FencedHolder } from "../fenced-holder.js";
import type { GuardResult } from "../guard-result.js";
import { reportStale, requireFence } from "../require-fence.js";
import type { SqlExecutor, VersionedWriteTarget } from "./mysql-guard-types.js";
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
 * Read-modify-write in one statement: writes only if the row still has the `version` the
 * caller read AND no newer fence, then bumps the version and records our fence. An old
 * holder's write that landed between our read and our write changed the version, so ours
 * comes back `conflict` (read again and retry while holding the lock) instead of
 * overwriting it; and once ours landed, the old holder's comes back `stale`.
 *
 * `duplicate`: the row holds exactly our write of this version (a retry that landed).
 *
 * @throws LockUnavailableError - a local-tier lock (no fence).
 * @throws InvalidArgumentError - bad identifiers, or `where` does not name exactly one row.
 */
export async function versionedUpdate(
  db: SqlExecutor,
  holder: FencedHolder,
  target: VersionedWriteTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const columns = guardColumns(target);
  const set = assignments("set", target.set);
  const where = conditions(target);
  const expected = String(target.expectedVersion);
  const [result] = await db.execute(
    `UPDATE ${quoteId("table", target.table, true)} SET ${[...set.sql, `${columns.version} = ${columns.version} + 1`, `${columns.fence} = CAST(? AS UNSIGNED)`, `${columns.lockId} = ?`].join(", ")} WHERE ${where.sql} AND ${columns.version} = CAST(? AS UNSIGNED) AND (${columns.fence} IS NULL OR ${columns.fence} <= CAST(? AS UNSIGNED))`,
    [...set.params, fence, holder.lockId, ...where.params, expected, fence],
  );
  if (rowsMatched(result) > 0) return { outcome: "applied", currentFence: fence };
  const row = await readGuardRow(db, target, true);
  if (row.fence !== null && compareFences(row.fence, fence) > 0) {
    reportStale(holder, row.fence, targetName(target));
    return { outcome: "stale", currentFence: row.fence };
  }
  const ours = row.fence === fence && row.lockId === holder.lockId;
  if (ours && row.version === String(BigInt(expected) + 1n)) {
    return { outcome: "duplicate", currentFence: fence };
  }
  return { outcome: "conflict", currentFence: row.fence };
}
