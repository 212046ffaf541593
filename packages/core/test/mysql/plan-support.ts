import type { RowDataPacket } from "mysql2/promise";
import type { MysqlTarget } from "./mysql-target.js";

/** A row of MariaDB's `EXPLAIN`, as the plan tests read it. */
export interface PlanRow extends RowDataPacket {
  id: number | null;
  table: string | null;
  type: string | null;
  key: string | null;
}

/** The n-th statement of a round trip. */
export function nth(sql: string, n: number): string {
  return sql.split(";")[n]!.trim();
}

/** Rows of other keys each plan test writes beside the key it explains. */
export const OTHER_KEYS = 3000;

/**
 * The two states in which MariaDB 10.11 misjudges `expires_at` / `deadline` against a key:
 * many ended rows and one live grant (it estimates `expires_at > NOW(3)` at one row), and a
 * busy tier the sweeper has just cleaned (it estimates `expires_at <= NOW(3)` at one row).
 * Either way it prefers the short time index, and a statement on one key then scans and
 * locks other keys' rows at the end of that index (docs/decisions/0205). Each entry: the
 * state's name, and the SQL expression of the other keys' expiry.
 */
export const PLAN_STATES = [
  ["many ended keys", "NOW(3) - INTERVAL 1 HOUR"],
  ["many live keys, none ended", "NOW(3) + INTERVAL 1 HOUR"],
] as const;

/** Runs `INSERT … SELECT <sql> FROM seq_1_to_OTHER_KEYS` with `resource` bound. */
export function fillOtherKeys(target: MysqlTarget, resource: string, sql: string) {
  return target.admin.query(`${sql} FROM seq_1_to_${OTHER_KEYS}`, [resource]);
}
