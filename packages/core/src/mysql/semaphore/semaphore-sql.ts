import { TTL_MS } from "../sql/lease-columns.js";

/**
 * Statements of the MySQL tier's semaphore (docs/decisions/0160). An acquire is one
 * transaction that first locks the key's `mysql_semaphore` row, so every decision on a key
 * is serialized there; release, extend and force-release are one statement each on the
 * grant's row. All time is the database's `NOW(3)`.
 */

/**
 * The tables read through the index a statement on one key (or one grant) means. Without a
 * hint MariaDB may prefer the short `expires_at` / `deadline` index whenever it estimates the
 * time test at one row: with many ended grants and few live ones for `expires_at > NOW(3)`,
 * with few ended ones for `expires_at <= NOW(3)`. It then scans and locks other keys' rows at
 * the end of that index instead of the key's own (docs/decisions/0205). A single-table DELETE
 * takes no index hint: the ones without RETURNING use the multi-table form; the ones with
 * RETURNING test the expiry with {@link LIVE}, which no index serves.
 */
const PERMITS_OF_KEY =
  "mysql_semaphore_permit FORCE INDEX (mysql_semaphore_permit_resource_business_key_expires_at_idx)";
const PERMIT_BY_LOCK_ID = "mysql_semaphore_permit FORCE INDEX (mysql_semaphore_permit_lock_id_key)";
const WAITERS_OF_KEY =
  "mysql_lock_waiter FORCE INDEX (mysql_lock_waiter_resource_business_key_id_idx)";
const WAITER_BY_ID =
  "mysql_lock_waiter FORCE INDEX (mysql_lock_waiter_resource_business_key_waiter_id_key)";

/**
 * `expires_at > NOW(3)`, written so that `expires_at`'s index cannot serve it: the DELETEs
 * with RETURNING then find their rows through the lock_id key or the key's index.
 */
const LIVE = "TIMESTAMPDIFF(MICROSECOND, NOW(3), expires_at) > 0";

/** The columns every permit-reading statement selects, times as numbers on the database clock. */
export const PERMIT_COLUMNS = `lock_id, client_id, owner_id, permits,
  CAST(fence AS CHAR) AS fence, renewals,
  CAST(ROUND(UNIX_TIMESTAMP(granted_at) * 1000) AS UNSIGNED) AS granted_ms,
  CAST(ROUND(UNIX_TIMESTAMP(expires_at) * 1000) AS UNSIGNED) AS expires_ms,
  ${TTL_MS}`;

/** Creates the key's row if missing (its own autocommit statement: no gap locks inside the transaction). Parameters: resource, business_key, total. */
export const ENSURE_KEY = `INSERT IGNORE INTO mysql_semaphore (resource, business_key, last_fence, total_permits)
  VALUES (?, ?, 0, ?)`;

/** Locks the key's row for the transaction. Parameters: resource, business_key. */
export const LOCK_KEY = `SELECT CAST(last_fence AS CHAR) AS last_fence FROM mysql_semaphore
  WHERE resource = ? AND business_key = ? FOR UPDATE`;

/**
 * What may stop a grant, read under the key's lock: the newest epoch registered for this
 * tier and its base, the durable current epoch, the counter used in the tier's epoch, and
 * the fleet's shared tier. Same guards as the mutex's acquire statement (acquire-lock.ts).
 */
export const READ_GUARDS = `SELECT
    (SELECT CAST(epoch AS CHAR) FROM mysql_fence_base ORDER BY epoch DESC LIMIT 1) AS tier_epoch,
    (SELECT CAST(base AS CHAR) FROM mysql_fence_base ORDER BY epoch DESC LIMIT 1) AS tier_base,
    (SELECT CAST(COALESCE(MAX(epoch), 0) AS CHAR) FROM fence_epoch) AS durable_epoch,
    (SELECT CAST(next_not_cached_value AS CHAR) FROM mysql_lock_fence_seq) AS next_counter,
    (SELECT tier FROM tier_state WHERE id = 1) AS shared_tier`;

/** Reclaims the key's expired grants. Parameters: resource, business_key. */
export const RECLAIM_EXPIRED = `DELETE mysql_semaphore_permit FROM ${PERMITS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND expires_at <= NOW(3)`;

/** The key's live grants, soonest expiry first. Parameters: resource, business_key. */
export const LIVE_PERMITS = `SELECT ${PERMIT_COLUMNS} FROM ${PERMITS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND expires_at > NOW(3) ORDER BY expires_at, id`;

/**
 * The same, inside the acquire's transaction: a locking read, so it sees the latest committed
 * expiry (a plain read would see the transaction's snapshot, where a grant extended a moment
 * ago may still look expired) and holds off extends and releases of these rows until COMMIT.
 */
export const LIVE_PERMITS_LOCKED = `${LIVE_PERMITS} LOCK IN SHARE MODE`;

/** Fair waiters live in `mysql_lock_waiter`, as the mutex's (a resource is one kind or the other). Parameters: resource, business_key. */
export const PURGE_WAITERS = `DELETE mysql_lock_waiter FROM ${WAITERS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND deadline <= NOW(3)`;

/** Appends or renews a place. Parameters: resource, business_key, waiter_id, heartbeat ms. */
export const ENQUEUE = `INSERT INTO mysql_lock_waiter (resource, business_key, waiter_id, deadline)
  VALUES (?, ?, ?, NOW(3) + INTERVAL ? * 1000 MICROSECOND)
  ON DUPLICATE KEY UPDATE deadline = VALUES(deadline)`;

/** Live waiters ahead of `waiter_id` ('' = ahead of a caller without a place: all). Parameters: resource, business_key, resource, business_key, waiter_id. */
export const COUNT_AHEAD = `SELECT COUNT(*) AS ahead FROM ${WAITERS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND deadline > NOW(3)
    AND id < COALESCE((SELECT id FROM mysql_lock_waiter
                        WHERE resource = ? AND business_key = ? AND waiter_id = ?),
                      18446744073709551615)`;

/** Uses up a place. Parameters: resource, business_key, waiter_id. */
export const DEQUEUE = `DELETE mysql_lock_waiter FROM ${WAITER_BY_ID}
  WHERE resource = ? AND business_key = ? AND waiter_id = ?`;

/**
 * The grant: fence = GREATEST(key's last fence + 1, epoch * 2^33 + NEXTVAL - base), so it
 * exceeds every fence the key had on this tier and every fence of lower epochs.
 * Parameters: resource, business_key, lock_id, client_id, owner_id, permits, epoch * 2^33,
 * base, lease ms, resource, business_key.
 */
export const INSERT_PERMIT = `INSERT INTO mysql_semaphore_permit
    (resource, business_key, lock_id, client_id, owner_id, permits, fence, granted_at, renewals,
     expires_at)
  SELECT ?, ?, ?, ?, ?, ?,
         GREATEST(s.last_fence + 1, ? + (NEXTVAL(mysql_lock_fence_seq) - ?)),
         NOW(3), 0, NOW(3) + INTERVAL ? * 1000 MICROSECOND
    FROM mysql_semaphore AS s WHERE s.resource = ? AND s.business_key = ?`;

/** Records the grant's fence and the total on the key. Parameters: lock_id, total, resource, business_key. */
export const RECORD_GRANT = `UPDATE mysql_semaphore
  SET last_fence = (SELECT fence FROM mysql_semaphore_permit WHERE lock_id = ?), total_permits = ?
  WHERE resource = ? AND business_key = ?`;

/** One grant by lockId. Parameters: lock_id. */
export const READ_PERMIT = `SELECT ${PERMIT_COLUMNS} FROM mysql_semaphore_permit WHERE lock_id = ?`;

/** Releases a live grant and returns it. Parameters: lock_id, resource, business_key. */
export const RELEASE_PERMIT = `DELETE FROM mysql_semaphore_permit
  WHERE lock_id = ? AND resource = ? AND business_key = ? AND ${LIVE}
  RETURNING ${PERMIT_COLUMNS}`;

/**
 * Extends a live grant, then reads it (one round trip; the read only reports).
 * Parameters: lease ms, lock_id, resource, business_key, lock_id.
 */
export const EXTEND_PERMIT = `UPDATE ${PERMIT_BY_LOCK_ID}
  SET renewals = renewals + 1, expires_at = NOW(3) + INTERVAL ? * 1000 MICROSECOND
  WHERE lock_id = ? AND resource = ? AND business_key = ? AND expires_at > NOW(3);
SELECT ${PERMIT_COLUMNS} FROM mysql_semaphore_permit WHERE lock_id = ?`;

/** Removes the key's live grants (or one), returning them. Parameters: resource, business_key[, lock_id]. */
export const FORCE_RELEASE_ALL = `DELETE FROM mysql_semaphore_permit
  WHERE resource = ? AND business_key = ? AND ${LIVE}
  RETURNING ${PERMIT_COLUMNS}`;
export const FORCE_RELEASE_ONE = `DELETE FROM mysql_semaphore_permit
  WHERE resource = ? AND business_key = ? AND ${LIVE} AND lock_id = ?
  RETURNING ${PERMIT_COLUMNS}`;

/** Removes a grant whose acquire lost its reply, live or not. Parameters: lock_id. */
export const REMOVE_UNCERTAIN = `DELETE FROM mysql_semaphore_permit WHERE lock_id = ?`;

/** The key's total. Parameters: resource, business_key. */
export const READ_TOTAL = `SELECT total_permits FROM mysql_semaphore WHERE resource = ? AND business_key = ?`;

/**
 * One page of a resource's keys with a live grant, in key order (the key's index), after the
 * previous page's last key ('' for the first). Parameters: resource, after, page size + 1.
 */
export const LIST_KEYS = `SELECT DISTINCT business_key FROM ${PERMITS_OF_KEY}
  WHERE resource = ? AND business_key > ? AND expires_at > NOW(3)
  ORDER BY business_key LIMIT ?`;

/** Any live grant at all (the tier wrapper's drain check). */
export const ANY_LIVE = `SELECT 1 FROM mysql_semaphore_permit WHERE expires_at > NOW(3) LIMIT 1`;

/** Deletes up to `batch` expired permit rows of any key, soonest expiry first. Parameter: batch size. */
export const SWEEP_PERMITS = `DELETE FROM mysql_semaphore_permit WHERE expires_at <= NOW(3) ORDER BY expires_at LIMIT ?`;

/** The key has a permit row, live or not, or a fair waiter's row. Correlated to `s`. */
const KEY_IN_USE = `EXISTS (SELECT 1 FROM mysql_semaphore_permit AS p
                     WHERE p.resource = s.resource AND p.business_key = s.business_key)
    OR EXISTS (SELECT 1 FROM mysql_lock_waiter AS w
                WHERE w.resource = s.resource AND w.business_key = s.business_key)`;

/**
 * Key rows with neither permits nor waiters, in id order from the cursor (candidates only:
 * the delete re-checks). Parameters: cursor id, batch size.
 */
export const FIND_IDLE_KEYS = `SELECT s.id FROM mysql_semaphore AS s
  WHERE s.id > ? AND NOT (${KEY_IN_USE})
  ORDER BY s.id LIMIT ?`;

/**
 * Deletes one idle key row, re-checking in the statement: it waits for an acquire holding the
 * row and keeps the row if that acquire left a permit or a waiter. Parameter: id.
 */
export const DELETE_IDLE_KEY = `DELETE s FROM mysql_semaphore AS s
  WHERE s.id = ? AND NOT (${KEY_IN_USE})`;
