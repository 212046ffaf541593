/**
 * `ttl_ms` of a row with `granted_at` and `expires_at`: the ms left of its lease on the
 * database clock, never negative and never more than the lease runs from its grant. The
 * second bound holds when the database clock stepped back after the grant (a refused
 * caller was once told 10 001 ms of a 10 000 ms lease): a caller that trusts the
 * remaining time, like the SDK refusing a key locally until it ends, is never told more.
 */
export const TTL_MS = `GREATEST(0,
    TIMESTAMPDIFF(MICROSECOND, GREATEST(NOW(3), granted_at), expires_at) DIV 1000) AS ttl_ms`;

/**
 * The columns every lease-reading statement selects, with times turned into numbers on
 * the database clock: `granted_ms` and `expires_ms` (ms since the Unix epoch) and `ttl_ms`
 * ({@link TTL_MS}). `fence` comes back as a decimal string.
 */
export const LEASE_COLUMNS = `id, resource, business_key, lock_id, client_id, owner_id,
  CAST(fence AS CHAR) AS fence, reentry, renewals,
  CAST(ROUND(UNIX_TIMESTAMP(granted_at) * 1000) AS UNSIGNED) AS granted_ms,
  CAST(ROUND(UNIX_TIMESTAMP(expires_at) * 1000) AS UNSIGNED) AS expires_ms,
  ${TTL_MS}`;

/**
 * `mysql_lock` read through its `(resource, business_key)` unique key, for the statements
 * that change one key's grant and also test `expires_at > NOW(3)`. Without the hint
 * MariaDB sometimes scans `expires_at`'s index instead (every live row, next-key locks up
 * to its end), and two releases doing that deadlock each other: 50 deadlocks in one
 * `pnpm bench --variants raw-mysql,sdk-mysql`, all between two releases, each holding
 * 200–290 locks on that index (docs/decisions/0205).
 */
export const LOCK_BY_KEY = "mysql_lock FORCE INDEX (mysql_lock_resource_business_key_key)";
