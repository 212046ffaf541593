import { createPool, type Pool, type PoolOptions } from "mysql2/promise";

/**
 * A pool for the lock statements. CLIENT_FOUND_ROWS is switched off (mysql2 sets it by
 * default) so that an INSERT ... ON DUPLICATE KEY UPDATE that changed nothing reports 0
 * affected rows, which is how an acquire tells a refusal from a grant. Multiple statements
 * are on so that a decision and the read that reports it travel in one round trip
 * (docs/decisions/0007); every value still goes through the driver's escaping (`?`).
 */
export function createLockPool(connection: string | PoolOptions, size: number): Pool {
  const base: PoolOptions = typeof connection === "string" ? { uri: connection } : connection;
  return createPool({
    ...base,
    connectionLimit: size,
    flags: [...(base.flags ?? []), "-FOUND_ROWS"],
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
}
