/** What `npm start` reads from the environment, read once. */
export interface DemoEnv {
  /** Use this Redis instead of starting a private one. */
  readonly redisUrl: string | undefined;
  /** Use this database instead of starting a private MariaDB. */
  readonly databaseUrl: string | undefined;
  /** Preferred server port; a free one is used when it is taken. @defaultValue 4000 */
  readonly apiPort: number;
  /** Preferred console port. @defaultValue 3000 */
  readonly webPort: number;
  readonly adminUser: string;
  readonly adminPassword: string;
  /** @defaultValue "warn" */
  readonly logLevel: string;
  /** The whole environment, passed on to the server's own validation. */
  readonly raw: NodeJS.ProcessEnv;
}

const nonEmpty = (value: string | undefined) =>
  value && value.trim() !== "" ? value.trim() : undefined;

/** Reads the environment; the server validates its own variables again. */
export function loadDemoEnv(env: NodeJS.ProcessEnv = process.env): DemoEnv {
  return {
    redisUrl: nonEmpty(env.REDIS_URL),
    databaseUrl: nonEmpty(env.DATABASE_URL),
    apiPort: Number(env.WARDEN_PORT ?? 4000),
    webPort: Number(env.WARDEN_WEB_PORT ?? 3000),
    adminUser: nonEmpty(env.WARDEN_ADMIN_USER) ?? "admin",
    adminPassword: nonEmpty(env.WARDEN_ADMIN_PASSWORD) ?? "warden-demo-admin",
    logLevel: nonEmpty(env.WARDEN_LOG_LEVEL) ?? "warn",
    raw: env,
  };
}

/** Points the temp dir (where the testkit puts server data) at `dir`. */
export function useTempDir(dir: string): void {
  process.env.TMPDIR = dir;
}
