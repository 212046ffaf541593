import { FALLBACK_MYSQL_URL, mysqlServerUrlFromEnv } from "../env-urls.js";
import type { MariaDbServer } from "../types.js";
import { startMariaDb } from "./start-mariadb.js";
import { withMysql } from "./with-mysql.js";

/** The MariaDB a test run shares, and the private server started for it, if any. */
export interface SharedTestMariaDb {
  readonly url: string;
  /** Started for this run because no server was configured and none answered; else null. */
  readonly started: MariaDbServer | null;
}

/**
 * Finds the MariaDB the tests of one run share ({@link createTestDatabase}'s default):
 * - the one `WARDEN_TEST_MYSQL_URL` or `MYSQL_URL` names, as it is: a configured server
 *   that does not answer fails the tests that need it, it is not replaced;
 * - else `fallbackUrl` (the local `root@127.0.0.1:3306`) when it answers as that user;
 * - else (a fresh machine: no MariaDB running, or Debian's, whose root logs in only
 *   through its socket) a private MariaDB on a free port, which the caller stops.
 */
export async function findSharedTestMariaDb(
  fallbackUrl: string = FALLBACK_MYSQL_URL,
): Promise<SharedTestMariaDb> {
  const configured = mysqlServerUrlFromEnv();
  if (configured !== undefined) return { url: configured, started: null };
  try {
    await withMysql(fallbackUrl, (connection) => connection.query("SELECT 1"));
    return { url: fallbackUrl, started: null };
  } catch {
    const started = await startMariaDb();
    return { url: started.url, started };
  }
}
