/**
 * Gives up a fair waiter's place (a cancelled wait).
 * Parameters: 1 resource, 2 business_key, 3 waiter_id. Affected rows: 1 when it had one.
 */
export const LEAVE_QUEUE = `DELETE FROM mysql_lock_waiter
  WHERE resource = ? AND business_key = ? AND waiter_id = ?`;

/**
 * Deletes waiters dead for longer than the retain time, in bounded batches (the sweeper):
 * keys nobody acquires again would otherwise keep their dead waiters for ever.
 * Parameters: 1 retain in ms, 2 batch size.
 */
export const SWEEP_DEAD_WAITERS = `DELETE FROM mysql_lock_waiter
  WHERE deadline < NOW(3) - INTERVAL ? * 1000 MICROSECOND
  ORDER BY deadline LIMIT ?`;

/**
 * A key's live places in arrival order (the read of LockStore.readQueue), with their
 * deadline in ms since the Unix epoch and the remaining ms, both on the database clock.
 * Parameters: 1 resource, 2 business_key, 3 limit.
 */
export const READ_QUEUE = `SELECT waiter_id, CAST(id AS CHAR) AS arrival,
  CAST(ROUND(UNIX_TIMESTAMP(deadline) * 1000) AS UNSIGNED) AS deadline_ms,
  TIMESTAMPDIFF(MICROSECOND, NOW(3), deadline) DIV 1000 AS ttl_ms
  FROM mysql_lock_waiter
  WHERE resource = ? AND business_key = ? AND deadline > NOW(3)
  ORDER BY id LIMIT ?`;
