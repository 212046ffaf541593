/**
 * Releases one entry of a live grant, checking its lockId in the same statement (S3):
 * a re-entered lease keeps its expiry and loses one entry; the last entry ends the lease
 * (`expires_at = NOW(3)`). The row stays, holding the key's highest fence, until the
 * sweeper deletes it.
 *
 * Parameters: 1 resource, 2 business_key, 3 lock_id.
 * Result: "Rows matched: 1" when released, 0 when the lockId does not hold the key.
 * `expires_at` is assigned first because its condition reads `reentry` as it was.
 */
export const RELEASE_LOCK = `UPDATE mysql_lock
    SET expires_at = IF(reentry > 1, expires_at, NOW(3)),
        reentry = IF(reentry > 1, reentry - 1, 0)
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3)`;
