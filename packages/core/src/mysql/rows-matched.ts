import type { ResultSetHeader } from "mysql2/promise";

/**
 * Rows an UPDATE matched. With CLIENT_FOUND_ROWS off, affectedRows counts only changed
 * rows; one that matched but did not change (the same expiry within a millisecond) still
 * counts in the reply's `info` text.
 */
export function rowsMatched(result: ResultSetHeader): number {
  const matched = /Rows matched:\s*(\d+)/.exec(result.info ?? "");
  return matched ? Number(matched[1]) : result.affectedRows;
}
