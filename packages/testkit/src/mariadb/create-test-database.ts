import { randomBytes } from "node:crypto";
import { defaultMysqlServerUrl } from "../env-urls.js";
import { withMysql } from "./with-mysql.js";

/** Options of {@link createTestDatabase}. */
export interface CreateTestDatabaseOptions {
  /** Server to create the database on; any database in the URL is ignored. */
  readonly url?: string;
}

/** A database created for one test. */
export interface TestDatabase {
  /** Server URL with the new database as its path. */
  readonly url: string;
  /** `warden_test_<12 hex digits>` */
  readonly database: string;
  /** Drops the database; idempotent. */
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named database on an existing server (default: see
 * {@link defaultMysqlServerUrl}). Costs one round trip, so tests that need not stop
 * MariaDB isolate themselves with this rather than a private server. Not dropped by
 * `stopAllStarted`: call `drop()` in `afterAll`.
 */
export async function createTestDatabase(
  opts: CreateTestDatabaseOptions = {},
): Promise<TestDatabase> {
  const server = new URL(opts.url ?? defaultMysqlServerUrl());
  server.pathname = "";
  const database = `warden_test_${randomBytes(6).toString("hex")}`;
  const serverUrl = server.toString();
  await withMysql(serverUrl, (connection) => connection.query(`CREATE DATABASE \`${database}\``));
  const url = new URL(server);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    database,
    drop: async () => {
      await withMysql(serverUrl, (connection) =>
        connection.query(`DROP DATABASE IF EXISTS \`${database}\``),
      );
    },
  };
}
