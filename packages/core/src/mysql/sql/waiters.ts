/**
 * `mysql_lock_waiter` read through the index a statement on one key (or one place) means.
 * Without a hint MariaDB 10.11 may take another one (docs/decisions/0205): the `deadline`
 * index for a purge of the key's dead waiters (`deadline <= NOW(3)`) when few waiters of any
 * key have died, where it then locks other keys' waiters at that index's low end; the waiter_id
 * key's `(resource, business_key)` prefix for the count of waiters ahead, which reads and locks
 * every waiter of the key instead of those ahead; and the shorter `(resource, business_key, id)`
 * index for a statement that names one place, when the key has one waiter. A single-table
 * DELETE takes no index hint, so the DELETEs use the multi-table form.
 */
export const WAITERS_OF_KEY =
  "mysql_lock_waiter FORCE INDEX (mysql_lock_waiter_resource_business_key_id_idx)";
export const WAITER_BY_ID =
  "mysql_lock_waiter FORCE INDEX (mysql_lock_waiter_resource_business_key_waiter_id_key)";

/**
 * Gives up a fair waiter's place (a cancelled wait).
 * Parameters: 1 resource, 2 business_key, 3 waiter_id. Affected rows: 1 when it had one.
 */
export const LEAVE_QUEUE = `DELETE mysql_lock_waiter FROM ${WAITER_BY_ID}
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
