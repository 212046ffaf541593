/**
 * The next batch of ids to sweep: rows whose lease ended more than `retainMs` ago, and
 * whose lock-delay (docs/decisions/0175) is over, in id order from the cursor.
 * Parameters: 1 cursor id, 2 retain in ms, 3 batch size.
 */
export const FIND_SWEEPABLE = `SELECT id FROM mysql_lock
  WHERE id > ? AND expires_at < NOW(3) - INTERVAL ? * 1000 MICROSECOND
    AND expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND < NOW(3)
  ORDER BY id LIMIT ?`;

/**
 * Deletes the batch by primary-key range, re-checking expiry in the same statement so a
 * row taken over since the SELECT (live again) stays. Short, index-ranged deletes hold
 * few locks for little time. Parameters: 1 first id, 2 last id, 3 retain in ms, 4 batch
 * size (a row that expired since the SELECT cannot push a batch past it).
 */
export const DELETE_SWEEPABLE = `DELETE FROM mysql_lock
  WHERE id BETWEEN ? AND ? AND expires_at < NOW(3) - INTERVAL ? * 1000 MICROSECOND
    AND expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND < NOW(3)
  ORDER BY id LIMIT ?`;
