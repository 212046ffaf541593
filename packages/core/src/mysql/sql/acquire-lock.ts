import { FENCE_LAYOUT } from "@warden/contract";
import { LEASE_COLUMNS } from "./lease-columns.js";
import { WAITER_BY_ID, WAITERS_OF_KEY } from "./waiters.js";

/**
 * Counter values kept in reserve below {@link FENCE_LAYOUT.maxCounter}: the guard reads
 * the sequence's persisted high-water mark, and values handed out concurrently during
 * one statement (or cached by the sequence, 1 000) can never close a gap this wide.
 */
export const COUNTER_HEADROOM = 1_000_000;

/**
 * The whole acquire decision in one statement (docs/design.md#safety-properties): insert the key,
 * take over an expired row, or re-enter for the same holder; a live row of another holder is left
 * untouched. All time is the database's `NOW(3)`. The same round trip then reads the
 * key's row to report the outcome (the read decides nothing; docs/decisions/0007).
 *
 * Parameters: 1 resource, 2 business_key, 3 lock_id (the caller's new grant), 4 client_id,
 * 5 owner_id, 6 lease in ms, 7 lock-delay in ms (0: none), 8 resource, 9 business_key (for
 * the mirror check), 10 resource, 11 business_key (for the report).
 *
 * Results: the INSERT's header, then the key's row (LEASE_COLUMNS and `live`; none when
 * the key has no row).
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
 *   not grant here, or it could mint an epoch above the one Redis grants with
 *   (docs/design.md#fences-only-grow).
 *
 * Fence = epoch * 2^33 + (NEXTVAL(sequence) - the epoch's base). On takeover it is
 * GREATEST(old fence + 1, new): the row holds the key's highest fence, and a statement
 * that computed its value, then waited for the row lock behind later grants, must still
 * hand out more than they did.
 *
 * Lock-delay (docs/decisions/0175): every grant stores its `lock_delay_ms` (a re-entry keeps
 * the larger); a voluntary release zeroes it, an expiry or force-release leaves it, so the
 * key stays held back until `expires_at + lock_delay_ms`. Only the `delayed` statement (an
 * acquire that passes a delay) honours that: its "free" condition is the delay's end
 * instead of the lease's, and re-entry needs a live lease.
 *
 * MariaDB evaluates ON DUPLICATE KEY UPDATE assignments left to right, later ones seeing
 * earlier results. Every condition reads `expires_at`, `client_id` and `owner_id` (the
 * delayed one `lock_delay_ms` too), so those are assigned last (`expires_at`, then
 * `lock_delay_ms`, whose own condition tells a takeover by the new `lock_id`), and each
 * other condition still sees the row as it was.
 */
const decide = (fairGuard: string, delayed: boolean) => {
  const free = delayed
    ? "expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND <= NOW(3)"
    : "expires_at <= NOW(3)";
  const same =
    "expires_at > NOW(3) AND client_id = VALUES(client_id) AND owner_id = VALUES(owner_id)";
  return `INSERT INTO mysql_lock
    (resource, business_key, lock_id, client_id, owner_id, fence, reentry, renewals, granted_at,
     expires_at, lock_delay_ms)
  SELECT ?, ?, ?, ?, ?,
         e.epoch * ${FENCE_LAYOUT.counterSpan} + (NEXTVAL(mysql_lock_fence_seq) - e.base),
         1, 0, NOW(3), NOW(3) + INTERVAL ? * 1000 MICROSECOND, ?
    FROM (SELECT epoch, base FROM mysql_fence_base ORDER BY epoch DESC LIMIT 1) AS e
   WHERE e.epoch >= (SELECT COALESCE(MAX(epoch), 0) FROM fence_epoch)
     AND (SELECT next_not_cached_value FROM mysql_lock_fence_seq) - e.base
         <= ${FENCE_LAYOUT.maxCounter - COUNTER_HEADROOM}
     AND NOT EXISTS (SELECT 1 FROM redis_lease_mirror AS m
                      WHERE m.resource = ? AND m.business_key = ? AND m.expires_at > NOW(3))
     AND NOT EXISTS (SELECT 1 FROM tier_state AS t WHERE t.id = 1 AND t.tier <> 'mysql')${fairGuard}
  ON DUPLICATE KEY UPDATE
    fence = IF(${free}, GREATEST(fence + 1, VALUES(fence)), fence),
    reentry = IF(${free}, 1, IF(${same}, reentry + 1, reentry)),
    lock_id = IF(${free}, VALUES(lock_id), lock_id),
    granted_at = IF(${free}, VALUES(granted_at), granted_at),
    renewals = IF(${free}, 0, renewals),
    client_id = IF(${free}, VALUES(client_id), client_id),
    owner_id = IF(${free}, VALUES(owner_id), owner_id),
    expires_at = IF(${free}, VALUES(expires_at),
                 IF(${same}, GREATEST(expires_at, VALUES(expires_at)), expires_at)),
    lock_delay_ms = IF(lock_id = VALUES(lock_id), VALUES(lock_delay_ms),
                    IF(${same}, GREATEST(lock_delay_ms, VALUES(lock_delay_ms)), lock_delay_ms))`;
};

/** The key's row after the decision; `delay_left_ms`: the lock-delay left (0 when none). */
const REPORT = `SELECT ${LEASE_COLUMNS}, expires_at > NOW(3) AS live,
  GREATEST(0, TIMESTAMPDIFF(MICROSECOND, NOW(3),
    expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND) DIV 1000) AS delay_left_ms
  FROM mysql_lock WHERE resource = ? AND business_key = ?`;

const plain = (delayed: boolean) => `${decide("", delayed)};
${REPORT}`;

/** The plain acquire: decide, then report. Results: [INSERT header, report rows]. */
export const ACQUIRE_LOCK = plain(false);
/** {@link ACQUIRE_LOCK} for an acquire that passes a lock-delay (held back while one runs). */
export const ACQUIRE_LOCK_DELAYED = plain(true);

/**
 * The fair acquire (see FairWait), in the same round trip: drop the key's dead waiters,
 * append or renew the caller's place (`waiter_id` '' = no place), count the live waiters
 * ahead of it and whether it is the key's live holder already (a re-entry is not held
 * back), then decide with one more guard — nobody ahead, or a re-entry — and use up the
 * caller's place if it got the key. The counts are plain reads before the decision: two
 * callers racing may both see a stale queue, which can only cost fairness, never
 * exclusivity (the decision statement alone grants).
 *
 * Parameters: 1–2 key (purge), 3–5 key and waiter_id, 6 heartbeat ms, 7 waiter_id
 * (enqueue), 8–9 key, 10–11 key, 12 waiter_id (ahead), 13–14 key, 15 client_id,
 * 16 owner_id (holder), then ACQUIRE_LOCK's 1–9, then 17–19 key and waiter_id (use up the
 * place), then the report's key.
 * Results: [purge, enqueue, SET, INSERT header, SET, use-up, report rows, [{ ahead }]].
 */
const fairSql = (delayed: boolean) => `DELETE mysql_lock_waiter FROM ${WAITERS_OF_KEY}
  WHERE resource = ? AND business_key = ? AND deadline <= NOW(3);
INSERT INTO mysql_lock_waiter (resource, business_key, waiter_id, deadline)
  SELECT ?, ?, ?, NOW(3) + INTERVAL ? * 1000 MICROSECOND FROM DUAL WHERE ? <> ''
  ON DUPLICATE KEY UPDATE deadline = VALUES(deadline);
SET @warden_ahead = (SELECT COUNT(*) FROM ${WAITERS_OF_KEY}
      WHERE resource = ? AND business_key = ? AND deadline > NOW(3)
        AND id < COALESCE((SELECT id FROM mysql_lock_waiter
                            WHERE resource = ? AND business_key = ? AND waiter_id = ?),
                          18446744073709551615)),
    @warden_mine = (SELECT COUNT(*) FROM mysql_lock
      WHERE resource = ? AND business_key = ? AND client_id = ? AND owner_id = ?
        AND expires_at > NOW(3));
${decide("\n     AND (@warden_ahead = 0 OR @warden_mine > 0)", delayed)};
SET @warden_granted = ROW_COUNT();
DELETE mysql_lock_waiter FROM ${WAITER_BY_ID}
  WHERE resource = ? AND business_key = ? AND waiter_id = ? AND @warden_granted > 0;
${REPORT};
SELECT @warden_ahead AS ahead`;

/** The fair acquire; the caller's place is kept when a lock-delay holds it back. */
export const ACQUIRE_LOCK_FAIR = fairSql(false);
/** {@link ACQUIRE_LOCK_FAIR} for an acquire that passes a lock-delay. */
export const ACQUIRE_LOCK_FAIR_DELAYED = fairSql(true);

/** Where each statement's result sits in the reply of the plain and the fair acquire. */
export const ACQUIRE_RESULTS = {
  plain: { decision: 0, report: 1, ahead: -1 },
  fair: { decision: 3, report: 6, ahead: 7 },
} as const;
