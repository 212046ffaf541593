/**
 * Sets a live grant's remaining lease to `leaseMs` from now (database clock), checking
 * its lockId in the same statement (S3).
 *
 * Parameters: 1 lease in ms, 2 resource, 3 business_key, 4 lock_id.
 * Result: "Rows matched: 1" when extended (even if the expiry did not move), else 0.
 */
export const EXTEND_LOCK = `UPDATE mysql_lock
    SET expires_at = NOW(3) + INTERVAL ? * 1000 MICROSECOND
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3)`;
