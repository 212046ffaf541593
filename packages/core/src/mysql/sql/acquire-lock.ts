import { FENCE_LAYOUT } from "../../fence/fence-layout.js";

/**
 * Counter values kept in reserve below {@link FENCE_LAYOUT.maxCounter}: the guard reads
 * the sequence's persisted high-water mark, and values handed out concurrently during
 * one statement (or cached by the sequence, 1 000) can never close a gap this wide.
 */
export const COUNTER_HEADROOM = 1_000_000;

/**
 * The whole acquire decision in one statement (S1, S2, S3): insert the key, take over an
 * expired row, or re-enter for the same holder; a live row of another holder is left
 * untouched. All time is the database's `NOW(3)`.
 *
 * Parameters: 1 resource, 2 business_key, 3 lock_id (the caller's new grant), 4 client_id,
 * 5 owner_id, 6 lease in ms, 7 resource, 8 business_key (for the mirror check).
 *
 * Affected rows (the connection must not set CLIENT_FOUND_ROWS): 1 inserted (new grant),
 * 2 updated (takeover or re-entry: the row's lock_id tells which), 0 nothing changed:
 * held by another holder, a live mirrored Redis lease, or a guard below failed.
 *
 * Guards, all in the SELECT so that a failed one inserts and updates nothing:
 * - the newest epoch registered for this tier (`mysql_fence_base`) is at least the
 *   durable current epoch: an epoch minted since then (a tier switch, a Redis node
 *   binding) may be one Redis grants with, and this tier must outrank it;
 * - the counter has {@link COUNTER_HEADROOM} left in that epoch (never wrap);
 * - no live row for the key in `redis_lease_mirror`;
 * - the fleet's shared tier (`tier_state`, when there is one) is still `mysql`: once the
 *   controller has moved the fleet back to Redis, an instance that has not followed yet must
 *   not grant here, or it could mint an epoch above the one Redis grants with (S2).
 *
 * Fence = epoch * 2^33 + (NEXTVAL(sequence) - the epoch's base). On takeover it is
 * GREATEST(old fence + 1, new): the row holds the key's highest fence, and a statement
 * that computed its value, then waited for the row lock behind later grants, must still
 * hand out more than they did.
 *
 * MariaDB evaluates ON DUPLICATE KEY UPDATE assignments left to right, later ones seeing
 * earlier results. Every condition reads `expires_at`, `client_id` and `owner_id`, so
 * those are assigned last (`expires_at` very last), and each condition still sees the
 * row as it was.
 */
export const ACQUIRE_LOCK = `INSERT INTO mysql_lock
    (resource, business_key, lock_id, client_id, owner_id, fence, reentry, granted_at, expires_at)
  SELECT ?, ?, ?, ?, ?,
         e.epoch * ${FENCE_LAYOUT.counterSpan} + (NEXTVAL(mysql_lock_fence_seq) - e.base),
         1, NOW(3), NOW(3) + INTERVAL ? * 1000 MICROSECOND
    FROM (SELECT epoch, base FROM mysql_fence_base ORDER BY epoch DESC LIMIT 1) AS e
   WHERE e.epoch >= (SELECT COALESCE(MAX(epoch), 0) FROM fence_epoch)
     AND (SELECT next_not_cached_value FROM mysql_lock_fence_seq) - e.base
         <= ${FENCE_LAYOUT.maxCounter - COUNTER_HEADROOM}
     AND NOT EXISTS (SELECT 1 FROM redis_lease_mirror AS m
                      WHERE m.resource = ? AND m.business_key = ? AND m.expires_at > NOW(3))
     AND NOT EXISTS (SELECT 1 FROM tier_state AS t WHERE t.id = 1 AND t.tier <> 'mysql')
  ON DUPLICATE KEY UPDATE
    fence = IF(expires_at <= NOW(3), GREATEST(fence + 1, VALUES(fence)), fence),
    reentry = IF(expires_at <= NOW(3), 1,
              IF(client_id = VALUES(client_id) AND owner_id = VALUES(owner_id), reentry + 1, reentry)),
    lock_id = IF(expires_at <= NOW(3), VALUES(lock_id), lock_id),
    granted_at = IF(expires_at <= NOW(3), VALUES(granted_at), granted_at),
    client_id = IF(expires_at <= NOW(3), VALUES(client_id), client_id),
    owner_id = IF(expires_at <= NOW(3), VALUES(owner_id), owner_id),
    expires_at = IF(expires_at <= NOW(3), VALUES(expires_at),
                 IF(client_id = VALUES(client_id) AND owner_id = VALUES(owner_id),
                    GREATEST(expires_at, VALUES(expires_at)), expires_at))`;
