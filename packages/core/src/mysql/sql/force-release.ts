import { LOCK_BY_KEY } from "./lease-columns.js";

/**
 * Ends a live grant whoever holds it, by the lockId the caller just read, so an
 * operator's force-release removes exactly the grant it reports and never a newer one.
 * The grant's lock-delay (docs/decisions/0175) stays, so it runs from now.
 * Parameters: 1 resource, 2 business_key, 3 lock_id.
 * Result: "Rows matched: 1" when ended.
 */
export const OPERATOR_FORCE_RELEASE = `UPDATE ${LOCK_BY_KEY} SET expires_at = NOW(3), reentry = 0
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3)`;

/**
 * {@link OPERATOR_FORCE_RELEASE} for the cleanup of a grant whose outcome was unknown:
 * nobody was told of that grant, so its end starts no lock-delay.
 */
export const FORCE_RELEASE = `UPDATE ${LOCK_BY_KEY} SET expires_at = NOW(3), reentry = 0,
    lock_delay_ms = 0
  WHERE resource = ? AND business_key = ? AND lock_id = ? AND expires_at > NOW(3)`;
