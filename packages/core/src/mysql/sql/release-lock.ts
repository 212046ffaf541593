import { LOCK_BY_KEY } from "./lease-columns.js";

/**
 * Releases one entry of a live grant, checking its lockId in the same statement
 * (docs/design.md#only-the-holder-acts-on-a-grant):
 * a re-entered lease keeps its expiry and loses one entry; the last entry ends the lease
 * (`expires_at = NOW(3)`). The row stays, holding the key's highest fence, until the
 * sweeper deletes it.
 *
 * One round trip, two statements: the UPDATE decides and copies the facts of the row it
 * changed into session variables (self-assignments, which change nothing), the SELECT
 * returns them. So the reply describes exactly the lease this release acted on, even if
 * another holder takes the key over between the two statements.
 *
 * Parameters: 1 resource, 2 business_key, 3 lock_id, 4 resource, 5 business_key.
 * Results: the UPDATE ("Rows matched: 1" when released, 0 when the lockId does not hold
 * the key), then one row: the entries left, the facts, and the lockId that holds the key
 * live now (null when none; tells "expired" from "another holder" on a refusal).
 * `expires_at` and `lock_delay_ms` are assigned first because their conditions read
 * `reentry` as it was. The last entry zeroes `lock_delay_ms`: a voluntary release starts no
 * lock-delay (docs/decisions/0175).
 */
export const RELEASE_LOCK = `UPDATE ${LOCK_BY_KEY}
    SET expires_at = IF(reentry > 1, expires_at, NOW(3)),
        lock_delay_ms = IF(reentry > 1, lock_delay_ms, 0),
        reentry = (@warden_left := IF(reentry > 1, reentry - 1, 0)),
        fence = (@warden_fence := fence),
        client_id = (@warden_client := client_id),
        owner_id = (@warden_owner := owner_id),
        renewals = (@warden_renewals := renewals),
        granted_at = (@warden_granted := granted_at)
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3);
SELECT @warden_left AS reentry, CAST(@warden_fence AS CHAR) AS fence,
       @warden_client AS client_id, @warden_owner AS owner_id, @warden_renewals AS renewals,
       CAST(ROUND(UNIX_TIMESTAMP(@warden_granted) * 1000) AS UNSIGNED) AS granted_ms,
       (SELECT lock_id FROM mysql_lock
         WHERE resource = ? AND business_key = ? AND expires_at > NOW(3)) AS live_lock_id`;
