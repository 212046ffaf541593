/**
 * Ends a live grant whoever holds it, by the lockId the caller just read, so an
 * operator's force-release removes exactly the grant it reports and never a newer one.
 * Parameters: 1 resource, 2 business_key, 3 lock_id.
 * Result: "Rows matched: 1" when ended.
 */
export const FORCE_RELEASE = `UPDATE mysql_lock SET expires_at = NOW(3), reentry = 0
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3)`;
