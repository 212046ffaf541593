import { FENCE_LAYOUT } from "@warden/contract";
import { COUNTER_HEADROOM } from "../sql/acquire-lock.js";
import { TTL_MS } from "../sql/lease-columns.js";

/**
 * The statements of the MySQL tier's read-write lock (decision 0165). Every decision on a
 * key runs in one transaction that first locks the key's `mysql_rw_lock` row, so decisions
 * on one key are serialized; times are the database's `NOW(3)`.
 */

/**
 * The read-write tables read through the index a statement on one key (or one grant) means.
 * Without a hint MariaDB may prefer the short `expires_at` / `deadline` index whenever it
 * estimates the time test at one row: with many ended grants and few live ones for a
 * release or an extend (`expires_at > NOW(3)`), with few ended ones for an acquire's
 * reclaim (`expires_at <= NOW(3)`). It then scans and locks other keys' rows at the end of
 * that index instead of the key's own (docs/decisions/0205). A single-table DELETE takes no
 * index hint, so the reclaims use the multi-table form.
 */
const GRANTS_OF_KEY = "mysql_rw_grant FORCE INDEX (mysql_rw_grant_resource_business_key_idx)";
const GRANT_BY_LOCK_ID = "mysql_rw_grant FORCE INDEX (mysql_rw_grant_lock_id_key)";
const INTENTS_OF_KEY =
  "mysql_rw_intent FORCE INDEX (mysql_rw_intent_resource_business_key_client_id_owner_id_key)";

/** Times and fence of a grant row as numbers/strings on the database clock. */
const GRANT_COLUMNS = `lock_id, mode, client_id, owner_id, CAST(fence AS CHAR) AS fence, reentry, renewals,
  CAST(ROUND(UNIX_TIMESTAMP(granted_at) * 1000) AS UNSIGNED) AS granted_ms,
  CAST(ROUND(UNIX_TIMESTAMP(expires_at) * 1000) AS UNSIGNED) AS expires_ms,
  ${TTL_MS}`;

/**
 * The first round trip of an acquire, inside its transaction: create and lock the key's row,
 * reclaim its expired grants and intents, then read what the decision needs.
 * Parameters: key × 6 (insert, lock, two deletes, grants, intents), key (mutex check).
 * Results: [insert, [row], delete, delete, grants, intents, [guards]].
 */
export const RW_LOCK_AND_READ = `INSERT INTO mysql_rw_lock (resource, business_key, read_fence, last_fence)
  VALUES (?, ?, NULL, 0) ON DUPLICATE KEY UPDATE last_fence = last_fence;
SELECT CAST(read_fence AS CHAR) AS read_fence, CAST(last_fence AS CHAR) AS last_fence
  FROM mysql_rw_lock WHERE resource = ? AND business_key = ? FOR UPDATE;
DELETE mysql_rw_grant FROM ${GRANTS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND expires_at <= NOW(3);
DELETE mysql_rw_intent FROM ${INTENTS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND deadline <= NOW(3);
SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant
  WHERE resource = ? AND business_key = ? ORDER BY id;
SELECT client_id, owner_id, GREATEST(0, TIMESTAMPDIFF(MICROSECOND, NOW(3), deadline) DIV 1000) AS ttl_ms
  FROM mysql_rw_intent WHERE resource = ? AND business_key = ?;
SELECT EXISTS(SELECT 1 FROM mysql_lock WHERE resource = ? AND business_key = ? AND expires_at > NOW(3)) AS mutex,
  (SELECT COALESCE(MAX(epoch), 0) FROM mysql_fence_base) AS tier_epoch,
  (SELECT COALESCE(MAX(epoch), 0) FROM fence_epoch) AS durable_epoch,
  (SELECT tier FROM tier_state WHERE id = 1) AS shared_tier`;

/** Where each result of {@link RW_LOCK_AND_READ} sits. */
export const RW_READ_RESULTS = { row: 1, grants: 4, intents: 5, guards: 6 } as const;

/**
 * Registers or renews a writer's intent. Parameters: resource, business_key, client_id,
 * owner_id, intent ms.
 */
export const RW_REGISTER_INTENT = `INSERT INTO mysql_rw_intent (resource, business_key, client_id, owner_id, deadline)
  VALUES (?, ?, ?, ?, NOW(3) + INTERVAL ? * 1000 MICROSECOND)
  ON DUPLICATE KEY UPDATE deadline = VALUES(deadline)`;

/**
 * A fresh fence, minted the way the mutex's acquire statement does (decision 0003): the
 * newest epoch registered for this tier, only while it is at least the durable epoch, with
 * counter headroom left and the fleet's shared tier still `mysql`; and above the key's last
 * fence. NULL when a guard fails. Parameter: the key's last fence.
 * Results: [SET, [{ fence }]].
 */
export const RW_MINT_FENCE = `SET @warden_rw_fence = (
  SELECT GREATEST(CAST(? AS UNSIGNED) + 1,
                  e.epoch * ${FENCE_LAYOUT.counterSpan} + (NEXTVAL(mysql_lock_fence_seq) - e.base))
    FROM (SELECT epoch, base FROM mysql_fence_base ORDER BY epoch DESC LIMIT 1) AS e
   WHERE e.epoch >= (SELECT COALESCE(MAX(epoch), 0) FROM fence_epoch)
     AND (SELECT next_not_cached_value FROM mysql_lock_fence_seq) - e.base
         <= ${FENCE_LAYOUT.maxCounter - COUNTER_HEADROOM}
     AND NOT EXISTS (SELECT 1 FROM tier_state AS t WHERE t.id = 1 AND t.tier <> 'mysql'));
SELECT CAST(@warden_rw_fence AS CHAR) AS fence`;

/**
 * Writes a new grant with its fence, moves the key's fences (a read sets the generation's
 * fence, a write clears it) and drops the holder's intent; then reports the grant.
 * Parameters: resource, business_key, lock_id, mode, client_id, owner_id, fence, lease ms;
 * fence, mode, fence, resource, business_key; resource, business_key, client_id, owner_id;
 * lock_id. Results: [insert, update, delete, [grant]].
 */
export const RW_INSERT_GRANT = `INSERT INTO mysql_rw_grant
    (resource, business_key, lock_id, mode, client_id, owner_id, fence, reentry, renewals,
     granted_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, CAST(? AS UNSIGNED), 1, 0, NOW(3), NOW(3) + INTERVAL ? * 1000 MICROSECOND);
UPDATE mysql_rw_lock SET last_fence = GREATEST(last_fence, CAST(? AS UNSIGNED)),
    read_fence = IF(? = 'read', CAST(? AS UNSIGNED), NULL)
  WHERE resource = ? AND business_key = ?;
DELETE FROM mysql_rw_intent
  WHERE resource = ? AND business_key = ? AND client_id = ? AND owner_id = ?;
SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant WHERE lock_id = ?`;

/**
 * A re-entry: one more entry, the lease extended but never shortened. Parameters: lease ms,
 * lock_id; lock_id. Results: [update, [grant]].
 */
export const RW_REENTER = `UPDATE mysql_rw_grant SET reentry = reentry + 1,
    expires_at = GREATEST(expires_at, NOW(3) + INTERVAL ? * 1000 MICROSECOND)
  WHERE lock_id = ?;
SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant WHERE lock_id = ?`;

/**
 * Locks the key's row: release, extend, force-release and withdrawing an intent take it
 * first, like acquire, so every writer of a key's grants and intents is serialized in one
 * lock order (no deadlock cycles between them). Parameters: resource, business_key.
 */
export const RW_LOCK_KEY = `SELECT id FROM mysql_rw_lock WHERE resource = ? AND business_key = ? FOR UPDATE`;

/**
 * Release one entry of a live grant, report it, and delete it when no entry is left (one
 * transaction). Parameters: lock_id, resource, business_key; lock_id; lock_id.
 * Results: [update, [grant], delete].
 */
export const RW_RELEASE = `UPDATE ${GRANT_BY_LOCK_ID} SET reentry = reentry - 1
  WHERE lock_id = ? AND resource = ? AND business_key = ? AND expires_at > NOW(3) AND reentry > 0;
SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant WHERE lock_id = ?;
DELETE FROM mysql_rw_grant WHERE lock_id = ? AND reentry = 0`;

/**
 * Extend a live grant. Parameters: lease ms, lock_id, resource, business_key; lock_id.
 * Results: [update, [grant]].
 */
export const RW_EXTEND = `UPDATE ${GRANT_BY_LOCK_ID}
  SET renewals = renewals + 1, expires_at = NOW(3) + INTERVAL ? * 1000 MICROSECOND
  WHERE lock_id = ? AND resource = ? AND business_key = ? AND expires_at > NOW(3);
SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant WHERE lock_id = ?`;

/**
 * Withdraws one holder's writer intent (a writer that stopped waiting without a grant), run
 * after {@link RW_LOCK_KEY} in one transaction: says whether it was live, then deletes it
 * (a lapsed one too). Grants and other holders' intents are not touched.
 * Parameters: resource, business_key, client_id, owner_id; the same again.
 * Results: [[{ live }], delete].
 */
export const RW_WITHDRAW_INTENT = `SELECT COUNT(*) AS live FROM mysql_rw_intent
  WHERE resource = ? AND business_key = ? AND client_id = ? AND owner_id = ? AND deadline > NOW(3);
DELETE FROM mysql_rw_intent
  WHERE resource = ? AND business_key = ? AND client_id = ? AND owner_id = ?`;

/**
 * What inspect reports (read only). Parameters: key × 3.
 * Results: [grants, [{ read_fence, intents }]].
 */
export const RW_INSPECT = `SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant
  WHERE resource = ? AND business_key = ? AND expires_at > NOW(3) ORDER BY id;
SELECT (SELECT CAST(read_fence AS CHAR) FROM mysql_rw_lock WHERE resource = ? AND business_key = ?) AS read_fence,
  (SELECT COUNT(*) FROM mysql_rw_intent WHERE resource = ? AND business_key = ? AND deadline > NOW(3)) AS intents`;

/**
 * An operator's removal, in one transaction: report the key's live grants (all, or lockId's)
 * and delete them.
 * Parameters: resource, business_key, lock_id or '', lock_id or ''; the same again.
 * Results: [[grants], delete].
 */
export const RW_FORCE_RELEASE = `SELECT ${GRANT_COLUMNS} FROM mysql_rw_grant
  WHERE resource = ? AND business_key = ? AND expires_at > NOW(3) AND (? = '' OR lock_id = ?) ORDER BY id FOR UPDATE;
DELETE FROM mysql_rw_grant WHERE resource = ? AND business_key = ? AND (? = '' OR lock_id = ?)`;

/**
 * One page of a resource's keys with a live grant, in key order (the `(resource,
 * business_key)` index, named: with many ended grants MariaDB chose `expires_at`'s and read
 * every resource's live grants), after the previous page's last key ('' for the first).
 * Parameters: resource, after, page size + 1.
 */
export const RW_LIST_KEYS = `SELECT DISTINCT business_key FROM ${GRANTS_OF_KEY}
  WHERE resource = ? AND business_key > ? AND expires_at > NOW(3)
  ORDER BY business_key LIMIT ?`;

/** Ends a grant whose acquire had an unknown outcome. Parameter: lock_id. */
export const RW_DROP_GRANT = `DELETE FROM mysql_rw_grant WHERE lock_id = ?`;

/** Deletes up to `batch` expired grants of any key. Parameter: batch size. */
export const RW_SWEEP_GRANTS = `DELETE FROM mysql_rw_grant WHERE expires_at <= NOW(3) ORDER BY expires_at LIMIT ?`;

/** Deletes up to `batch` lapsed writer intents of any key. Parameter: batch size. */
export const RW_SWEEP_INTENTS = `DELETE FROM mysql_rw_intent WHERE deadline <= NOW(3) ORDER BY deadline LIMIT ?`;

/**
 * Key rows with neither grants nor intents, in id order from the cursor (candidates only: the
 * delete re-checks). Parameters: cursor id, batch size.
 */
export const RW_FIND_IDLE_KEYS = `SELECT k.id FROM mysql_rw_lock AS k
  WHERE k.id > ?
    AND NOT EXISTS (SELECT 1 FROM mysql_rw_grant AS g
                     WHERE g.resource = k.resource AND g.business_key = k.business_key)
    AND NOT EXISTS (SELECT 1 FROM mysql_rw_intent AS i
                     WHERE i.resource = k.resource AND i.business_key = k.business_key)
  ORDER BY k.id LIMIT ?`;

/**
 * Deletes one idle key row, re-checking in the statement: it waits for a decision holding the
 * row and keeps the row if that decision left a grant or an intent. Parameter: id.
 */
export const RW_DELETE_IDLE_KEY = `DELETE k FROM mysql_rw_lock AS k
  WHERE k.id = ?
    AND NOT EXISTS (SELECT 1 FROM mysql_rw_grant AS g
                     WHERE g.resource = k.resource AND g.business_key = k.business_key)
    AND NOT EXISTS (SELECT 1 FROM mysql_rw_intent AS i
                     WHERE i.resource = k.resource AND i.business_key = k.business_key)`;
