import { LEASE_COLUMNS, LOCK_BY_KEY } from "./lease-columns.js";

/**
 * Sets a live grant's remaining lease to `leaseMs` from now (database clock) and counts
 * the renewal, checking its lockId in the same statement
 * (docs/design.md#only-the-holder-acts-on-a-grant); then, in the same round trip, reads the
 * key's row to report the extended lease.
 *
 * Parameters: 1 lease in ms, 2 resource, 3 business_key, 4 lock_id, 5 resource,
 * 6 business_key.
 * Results: the UPDATE ("Rows matched: 1" when extended, else 0), then the key's row with
 * LEASE_COLUMNS and `live` (none when the key has no row).
 */
export const EXTEND_LOCK = `UPDATE ${LOCK_BY_KEY}
    SET renewals = renewals + 1,
        expires_at = NOW(3) + INTERVAL ? * 1000 MICROSECOND
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3);
SELECT ${LEASE_COLUMNS}, expires_at > NOW(3) AS live
  FROM mysql_lock WHERE resource = ? AND business_key = ?`;
