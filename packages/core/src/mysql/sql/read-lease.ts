import { LEASE_COLUMNS } from "./lease-columns.js";

/**
 * The key's row, live or not, for reporting only (who holds it, whether a lockId's lease
 * ended): decisions are never taken from it.
 * Parameters: 1 resource, 2 business_key.
 */
export const READ_LEASE = `SELECT ${LEASE_COLUMNS}, expires_at > NOW(3) AS live
  FROM mysql_lock WHERE resource = ? AND business_key = ?`;

/**
 * The key's lock-delay left when it has no live lease (docs/decisions/0175): one row with
 * `delay_left_ms` > 0 and `delay_until_ms` (database clock), or none. Parameters: 1
 * resource, 2 business_key.
 */
export const READ_LOCK_DELAY = `SELECT
    TIMESTAMPDIFF(MICROSECOND, NOW(3),
      expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND) DIV 1000 AS delay_left_ms,
    CAST(ROUND(UNIX_TIMESTAMP(expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND) * 1000)
      AS UNSIGNED) AS delay_until_ms
  FROM mysql_lock
  WHERE resource = ? AND business_key = ? AND expires_at <= NOW(3) AND lock_delay_ms > 0
    AND expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND > NOW(3)`;

/**
 * Why an acquire that changed nothing was refused, besides a live holder: a live
 * mirrored Redis lease, the tier's epoch falling behind the durable one, or the counter
 * running out of headroom. For reporting and epoch renewal only.
 * Parameters: 1 resource, 2 business_key.
 */
export const READ_BLOCKERS = `SELECT
    (SELECT COALESCE(MAX(epoch), 0) FROM mysql_fence_base) AS tier_epoch,
    (SELECT COALESCE(MAX(epoch), 0) FROM fence_epoch) AS durable_epoch,
    (SELECT next_not_cached_value FROM mysql_lock_fence_seq)
      - (SELECT base FROM mysql_fence_base ORDER BY epoch DESC LIMIT 1) AS counter_used,
    (SELECT tier FROM tier_state WHERE id = 1) AS shared_tier,
    m.lock_id AS mirror_lock_id,
    GREATEST(0, TIMESTAMPDIFF(MICROSECOND, NOW(3), m.expires_at) DIV 1000) AS mirror_ttl_ms
  FROM (SELECT 1) AS one
  LEFT JOIN redis_lease_mirror AS m
    ON m.resource = ? AND m.business_key = ? AND m.expires_at > NOW(3)`;
