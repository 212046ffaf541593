import { InvalidArgumentError } from "@warden/contract";
import { conditions, guardColumns, quoteId } from "./sql-parts.js";
import type { MysqlGuardTarget, SqlExecutor } from "./mysql-guard-types.js";

/** The guard columns of one row, fences as decimal strings (never doubles). */
export interface GuardRow {
  readonly fence: string | null;
  readonly lockId: string | null;
  readonly version: string | null;
}

/**
 * Reads the guard columns of the target row after a conditional UPDATE matched nothing,
 * to say why. Only explains: the decision was the UPDATE's, made atomically.
 *
 * @throws InvalidArgumentError - `where` matches no row, or more than one.
 */
export async function readGuardRow(
  db: SqlExecutor,
  target: MysqlGuardTarget,
  withVersion: boolean,
): Promise<GuardRow> {
  const columns = guardColumns(target);
  const where = conditions(target);
  const version = withVersion ? `CAST(${columns.version} AS CHAR)` : "NULL";
  const [rows] = await db.execute(
    `SELECT CAST(${columns.fence} AS CHAR) AS fence, ${columns.lockId} AS lockId, ${version} AS version FROM ${quoteId("table", target.table, true)} WHERE ${where.sql} LIMIT 2`,
    where.params,
  );
  // CAST(… AS CHAR) and CHAR columns come back as strings (or Buffers for binary columns).
  const list = rows as Array<{
    fence: string | Buffer | null;
    lockId: string | Buffer | null;
    version: string | Buffer | null;
  }>;
  if (list.length !== 1) {
    throw new InvalidArgumentError(
      "where",
      list.length === 0
        ? `matches no row of ${target.table}: guards update existing rows only`
        : `matches several rows of ${target.table}: name one row by a unique key`,
    );
  }
  const row = list[0]!;
  return {
    fence: row.fence === null ? null : row.fence.toString(),
    lockId: row.lockId === null ? null : row.lockId.toString(),
    version: row.version === null ? null : row.version.toString(),
  };
}
