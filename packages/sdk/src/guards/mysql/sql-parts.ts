import { InvalidArgumentError } from "@warden/contract";
import {
  MYSQL_GUARD_COLUMNS,
  type MysqlGuardColumns,
  type MysqlGuardTarget,
  type SqlValue,
} from "./mysql-guard-types.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,63}$/;

/** Quotes a validated identifier (`schema.table` allowed for tables). */
export function quoteId(option: string, name: string, allowSchema = false): string {
  const parts = allowSchema ? name.split(".") : [name];
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new InvalidArgumentError(option, `"${name}" is not a plain SQL identifier`);
  }
  return parts.map((part) => `\`${part}\``).join(".");
}

/** `a` = ?, `b` = ? and its values. */
export function assignments(
  option: string,
  values: Readonly<Record<string, SqlValue>>,
): { sql: string[]; params: SqlValue[] } {
  const entries = Object.entries(values);
  return {
    sql: entries.map(([column]) => `${quoteId(option, column)} = ?`),
    params: entries.map(([, value]) => value),
  };
}

/** The WHERE conditions of a target (at least one). */
export function conditions(target: MysqlGuardTarget): { sql: string; params: SqlValue[] } {
  const entries = Object.entries(target.where ?? {});
  if (entries.length === 0) {
    throw new InvalidArgumentError("where", "must name the row by at least one column");
  }
  return {
    sql: entries
      .map(([column, value]) =>
        value === null ? `${quoteId("where", column)} IS NULL` : `${quoteId("where", column)} = ?`,
      )
      .join(" AND "),
    params: entries.flatMap(([, value]) => (value === null ? [] : [value])),
  };
}

/** The guard's quoted column names. */
export function guardColumns(target: MysqlGuardTarget): MysqlGuardColumns {
  const columns = { ...MYSQL_GUARD_COLUMNS, ...target.columns };
  return {
    fence: quoteId("columns.fence", columns.fence),
    lockId: quoteId("columns.lockId", columns.lockId),
    version: quoteId("columns.version", columns.version),
  };
}

/** Rows an UPDATE matched, also when CLIENT_FOUND_ROWS is off (then affectedRows counts changes only). */
export function rowsMatched(result: unknown): number {
  const header = result as { affectedRows?: number; info?: string };
  const matched = /Rows matched:\s*(\d+)/.exec(header.info ?? "");
  return matched ? Number(matched[1]) : (header.affectedRows ?? 0);
}

/** Where a guard ran, for the stale-fence report. */
export function targetName(target: MysqlGuardTarget): string {
  return `mysql:${target.table}`;
}
