/** Where tests find the shared MariaDB when nothing else is configured. */
export const FALLBACK_MYSQL_URL = "mysql://root@127.0.0.1:3306";

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** An existing Redis to test against: `WARDEN_TEST_REDIS_URL`, or `undefined` when unset. */
export function redisUrlFromEnv(): string | undefined {
  return nonEmpty(process.env.WARDEN_TEST_REDIS_URL);
}

/** An existing MySQL/MariaDB to test against: `WARDEN_TEST_MYSQL_URL`, or `undefined` when unset. */
export function mysqlUrlFromEnv(): string | undefined {
  return nonEmpty(process.env.WARDEN_TEST_MYSQL_URL);
}

/** The MySQL/MariaDB the environment names for tests: `WARDEN_TEST_MYSQL_URL`, then `MYSQL_URL`. */
export function mysqlServerUrlFromEnv(): string | undefined {
  return mysqlUrlFromEnv() ?? nonEmpty(process.env.MYSQL_URL);
}

/**
 * The server {@link createTestDatabase} uses by default: `WARDEN_TEST_MYSQL_URL`, then
 * `MYSQL_URL`, then the local `mysql://root@127.0.0.1:3306`. In a vitest run the global
 * setup sets `WARDEN_TEST_MYSQL_URL` to a private server when neither is set and the local
 * one does not answer (`findSharedTestMariaDb`).
 */
export function defaultMysqlServerUrl(): string {
  return mysqlServerUrlFromEnv() ?? FALLBACK_MYSQL_URL;
}
