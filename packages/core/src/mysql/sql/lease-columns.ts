/**
 * The columns every lease-reading statement selects, with times turned into numbers on
 * the database clock: `granted_ms` and `expires_ms` (ms since the Unix epoch) and `ttl_ms`
 * (remaining ms, never negative). `fence` comes back as a decimal string.
 */
export const LEASE_COLUMNS = `id, resource, business_key, lock_id, client_id, owner_id,
  CAST(fence AS CHAR) AS fence, reentry, renewals,
  CAST(ROUND(UNIX_TIMESTAMP(granted_at) * 1000) AS UNSIGNED) AS granted_ms,
  CAST(ROUND(UNIX_TIMESTAMP(expires_at) * 1000) AS UNSIGNED) AS expires_ms,
  GREATEST(0, TIMESTAMPDIFF(MICROSECOND, NOW(3), expires_at) DIV 1000) AS ttl_ms`;
