import { createTestDatabase, startMariaDb, startRedis, type TestDatabase } from "@warden/testkit";
import type { BenchEnv } from "../env.js";
import type { CleanupStack } from "./cleanup-stack.js";

/** The Redis and MariaDB the bench runs on, and the databases it made on the latter. */
export interface BenchStores {
  readonly redisUrl: string;
  /** pid of redis-server when the bench started it; null for an external Redis. */
  readonly redisPid: number | null;
  /** pid of mariadbd when the bench started it; null for an external server. */
  readonly mysqlPid: number | null;
  /** The server's registry, audit and MySQL tier (migrated by the caller). */
  readonly serverDb: TestDatabase;
  /** The epoch source of the in-process core-redis store (migrated by the caller). */
  readonly coreDb: TestDatabase;
  /** The "application" database: raw-mysql's lock table and the fenced-write table. */
  readonly appDb: TestDatabase;
}

/**
 * InnoDB sizes of the bench's private MariaDB: what a production server of this box's size
 * would run with. The testkit's lean test sizes (32 MB pool, 8 MB redo log) are for
 * servers that hold a few test rows; the full bench writes millions of audit rows, and
 * on those sizes every insert paid for page reads and checkpoints after a few minutes.
 */
const BENCH_MARIADB = { bufferPool: "1G", redoLog: "512M" } as const;

/**
 * Starts a private Redis and MariaDB through the testkit (or uses the configured ones)
 * and creates three databases, registering their drops on `cleanup` when the server is
 * external. A private
 * MariaDB rather than the shared test server: other engineers' test runs must not share
 * its buffer pool and redo log with a measurement. (Servers the testkit started are
 * stopped by `stopAllStarted`, which the caller registers first.)
 */
export async function openStores(env: BenchEnv, cleanup: CleanupStack): Promise<BenchStores> {
  const redis = env.redisUrl === null ? await startRedis() : null;
  const mariadb = env.mysqlUrl === null ? await startMariaDb({ sizing: BENCH_MARIADB }) : null;
  const mysqlServerUrl = env.mysqlUrl ?? mariadb!.url;
  const create = async (): Promise<TestDatabase> => {
    const db = await createTestDatabase({ url: mysqlServerUrl });
    // A private server's datadir goes with it; only an external server keeps databases.
    if (mariadb === null) cleanup.push(`drop database ${db.database}`, () => db.drop());
    return db;
  };
  return {
    redisUrl: env.redisUrl ?? redis!.url,
    redisPid: redis?.pid ?? null,
    mysqlPid: mariadb?.pid ?? null,
    serverDb: await create(),
    coreDb: await create(),
    appDb: await create(),
  };
}
