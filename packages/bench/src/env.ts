/** The environment the bench reads, parsed once. */
export interface BenchEnv {
  /** An existing Redis to use instead of starting one (its logical dbs 0..3 get flushed). */
  readonly redisUrl: string | null;
  /** An existing MySQL/MariaDB server to create the bench's databases on. */
  readonly mysqlUrl: string | null;
  /** Where the user ran `pnpm bench` (pnpm runs the script in the package directory). */
  readonly invokedFrom: string;
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === "" ? null : value.trim();
}

/** Reads WARDEN_BENCH_REDIS_URL, WARDEN_BENCH_MYSQL_URL and pnpm's INIT_CWD. */
export function loadBenchEnv(source: Record<string, string | undefined> = process.env): BenchEnv {
  const redisUrl = nonEmpty(source.WARDEN_BENCH_REDIS_URL);
  const mysqlUrl = nonEmpty(source.WARDEN_BENCH_MYSQL_URL);
  if (redisUrl !== null && !/^redis:\/\//.test(redisUrl)) {
    throw new Error("WARDEN_BENCH_REDIS_URL must be a redis:// URL");
  }
  if (mysqlUrl !== null && !/^mysql:\/\//.test(mysqlUrl)) {
    throw new Error("WARDEN_BENCH_MYSQL_URL must be a mysql:// URL");
  }
  return { redisUrl, mysqlUrl, invokedFrom: nonEmpty(source.INIT_CWD) ?? process.cwd() };
}
