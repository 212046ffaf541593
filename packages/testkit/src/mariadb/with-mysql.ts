import { createConnection, type Connection, type ConnectionOptions } from "mysql2/promise";
import { TESTKIT_DEFAULTS } from "../defaults.js";

/** mysql2 options from a `mysql://user:password@host:port/database` URL. */
export function connectionOptions(url: string): ConnectionOptions {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  return {
    host: parsed.hostname,
    port: parsed.port === "" ? 3306 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    ...(database === "" ? {} : { database }),
  };
}

/**
 * Runs `use` on a fresh connection to `url` and closes it. Connecting gives up after
 * `timeoutMs`, so a probe of a dead or paused server fails instead of hanging.
 */
export async function withMysql<T>(
  url: string,
  use: (connection: Connection) => Promise<T>,
  timeoutMs: number = TESTKIT_DEFAULTS.probeTimeoutMs,
): Promise<T> {
  const connection = await createConnection({
    ...connectionOptions(url),
    connectTimeout: timeoutMs,
  });
  try {
    return await use(connection);
  } finally {
    // destroy, not end: a graceful end would wait on a server that may be paused.
    connection.destroy();
  }
}
