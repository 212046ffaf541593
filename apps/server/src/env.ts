import { hostname } from "node:os";
import { z } from "zod";
import { parseWebhooks } from "./alerts/webhook-config.js";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const list = z.string().transform((value) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);
const hostPorts = list.pipe(
  z.array(z.string().regex(/^[^:]+:\d+$/, "each entry must be host:port")).min(1),
);

/**
 * Every environment variable the server reads, validated once at startup. The README's
 * configuration table is generated from these descriptions by hand: keep both in step.
 */
const envSchema = z
  .object({
    /** MySQL/MariaDB URL of Warden's database (registry, audit, MySQL tier). */
    DATABASE_URL: z.string().regex(/^mysql:\/\//, "must be a mysql:// URL"),
    /** Standalone Redis URL, e.g. redis://127.0.0.1:6379. */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// URL")
      .optional(),
    /** Sentinels as host:port,host:port (instead of REDIS_URL). */
    WARDEN_REDIS_SENTINELS: hostPorts.optional(),
    /** Master name the sentinels monitor. */
    WARDEN_REDIS_MASTER_NAME: z.string().min(1).default("warden"),
    /** Cluster seed nodes as host:port,host:port (instead of REDIS_URL). */
    WARDEN_REDIS_CLUSTER_NODES: hostPorts.optional(),
    /** Password for sentinel or cluster data nodes. */
    WARDEN_REDIS_PASSWORD: z.string().min(1).optional(),
    /** Address to listen on. */
    WARDEN_HOST: z.string().min(1).default("127.0.0.1"),
    /** Port for HTTP, WebSocket, /metrics, /healthz, /readyz. */
    WARDEN_PORT: int(0, 65_535).default(4000),
    /** This instance's id in tier_state and logs. */
    WARDEN_INSTANCE_ID: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,64}$/)
      .default(`${hostname().slice(0, 48)}-${process.pid}`),
    /** pino level. */
    WARDEN_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    /** Largest request body, in bytes (HTTP bodies and WebSocket messages). */
    WARDEN_MAX_BODY_BYTES: int(1_024, 16 * 1024 * 1024).default(64 * 1024),
    /** Origins allowed to send cookie-authenticated mutations (the console), comma-separated. */
    WARDEN_CONSOLE_ORIGINS: list.default([]),
    /** Operator session lifetime, in ms. */
    WARDEN_SESSION_TTL_MS: int(60_000, 30 * 86_400_000).default(12 * 3_600_000),
    /** Mark the session cookie Secure (serve the console over HTTPS). */
    WARDEN_COOKIE_SECURE: bool.default(false),
    /** Login attempts per (user, client address) per minute; the address alone gets 3×. */
    WARDEN_LOGIN_ATTEMPTS_PER_MINUTE: int(1, 1_000).default(10),
    /** Login attempts per minute over every user and address (the fleet-wide ceiling). */
    WARDEN_LOGIN_ATTEMPTS_GLOBAL_PER_MINUTE: int(1, 100_000).default(300),
    /** Unknown or revoked API keys one client address may present per minute. */
    WARDEN_BAD_API_KEYS_PER_MINUTE: int(1, 100_000).default(30),
    /**
     * Reverse proxies (e.g. the console) whose X-Forwarded-For names the client, as exact
     * addresses, comma-separated (`127.0.0.1,::1`); from anyone else the header is ignored.
     */
    WARDEN_TRUSTED_PROXIES: list.default([]),
    /** Open live.events streams (SSE or WebSocket) per API key or session, per instance. */
    WARDEN_MAX_STREAMS_PER_CREDENTIAL: int(1, 10_000).default(16),
    /** Open WebSockets per API key or session, per instance. */
    WARDEN_MAX_SOCKETS_PER_CREDENTIAL: int(1, 100_000).default(128),
    /** Subscriptions at once on one WebSocket. */
    WARDEN_MAX_SUBSCRIPTIONS_PER_SOCKET: int(1, 1_000).default(8),
    /** Bearer token Prometheus sends for /metrics (`authorization` in its scrape config). */
    WARDEN_METRICS_TOKEN: z.string().min(16, "at least 16 characters").max(256).optional(),
    /** `host:port` of a separate listener serving /metrics only (e.g. an internal address). */
    WARDEN_METRICS_LISTEN: z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^:]+):\d{1,5}$/, "must be host:port")
      .transform((value) => {
        const at = value.lastIndexOf(":");
        return {
          host: value.slice(0, at).replace(/^\[|\]$/g, ""),
          port: Number(value.slice(at + 1)),
        };
      })
      .refine((listen) => listen.port <= 65_535, "port must be at most 65535")
      .optional(),
    /** Where the audit spool (JSONL) lives while MySQL is down. */
    WARDEN_AUDIT_SPOOL_DIR: z.string().min(1).default(".warden/audit-spool"),
    /** Spool size cap, in bytes; past it events are counted as dropped and an alert fires. */
    WARDEN_AUDIT_SPOOL_MAX_BYTES: int(1_024, 64 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
    /** How often the audit writer flushes, in ms. */
    WARDEN_AUDIT_FLUSH_MS: int(10, 60_000).default(250),
    /** Largest audit insert batch, in events. */
    WARDEN_AUDIT_BATCH_SIZE: int(1, 10_000).default(500),
    /** Audit events older than this are deleted, in days. */
    WARDEN_AUDIT_RETENTION_DAYS: int(1, 3_650).default(30),
    /** Longest graceful shutdown (drain in-flight calls, flush the audit), in ms. */
    WARDEN_SHUTDOWN_GRACE_MS: int(0, 300_000).default(10_000),
    /**
     * Time between passes of each MySQL sweeper (leases, read-write, semaphores), in ms.
     * `WardenMysqlSweeperFailing` looks at 15 minutes: keep at least three passes in it.
     */
    WARDEN_MYSQL_SWEEP_EVERY_MS: int(1_000, 300_000).default(30_000),
    /** Tier controller: Redis probe interval, in ms. */
    WARDEN_TIER_PROBE_INTERVAL_MS: int(100, 60_000).default(1_000),
    /** Tier controller: failed probes in a row before degrading. */
    WARDEN_TIER_FAILURES_TO_DEGRADE: int(1, 100).default(3),
    /** Tier controller: good probes in a row before recovering. */
    WARDEN_TIER_SUCCESSES_TO_RECOVER: int(1, 1_000).default(10),
    /** Alert webhooks: JSON array of {url, format, name?, repeatMs?, headers?} or `format=url,…` (see README, Alerts). */
    WARDEN_ALERT_WEBHOOKS: z
      .string()
      .optional()
      .superRefine((value, ctx) => {
        try {
          parseWebhooks(value);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
        }
      }),
    /** How often the fleet's alert evaluator evaluates, in ms. */
    WARDEN_ALERT_EVALUATE_MS: int(1_000, 600_000).default(10_000),
    /** The console's base URL, for links in alert notifications. */
    WARDEN_ALERT_CONSOLE_URL: z.string().url().optional(),
    /**
     * Node's own options. The server reads them only to see whether its node flags
     * (runtime/node-flags.ts) were given there rather than on the command line.
     */
    NODE_OPTIONS: z.string().default(""),
    /** First-run admin operator (with WARDEN_ADMIN_PASSWORD). */
    WARDEN_ADMIN_USER: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .optional(),
    /** First-run admin password, at least 12 characters. */
    WARDEN_ADMIN_PASSWORD: z.string().min(12).max(256).optional(),
  })
  .refine(
    (env) =>
      [env.REDIS_URL, env.WARDEN_REDIS_SENTINELS, env.WARDEN_REDIS_CLUSTER_NODES].filter(
        (value) => value !== undefined,
      ).length === 1,
    {
      message: "set exactly one of REDIS_URL, WARDEN_REDIS_SENTINELS, WARDEN_REDIS_CLUSTER_NODES",
      path: ["REDIS_URL"],
    },
  )
  .refine(
    (env) => (env.WARDEN_ADMIN_USER === undefined) === (env.WARDEN_ADMIN_PASSWORD === undefined),
    {
      message: "set both WARDEN_ADMIN_USER and WARDEN_ADMIN_PASSWORD, or neither",
      path: ["WARDEN_ADMIN_PASSWORD"],
    },
  );

/** The server's validated configuration. */
export type Env = z.infer<typeof envSchema>;

/** Parses `source` (default: process.env); throws one message that lists every problem. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `  ${issue.path.join(".") || "(env)"}: ${issue.message}`,
  );
  throw new Error(`invalid configuration:\n${problems.join("\n")}`);
}

const cliEnvSchema = z.object({
  /** MySQL/MariaDB URL of Warden's database. */
  DATABASE_URL: z.string().regex(/^mysql:\/\//, "must be a mysql:// URL"),
  /** Password for `operator create`; generated and printed when unset. */
  WARDEN_OPERATOR_PASSWORD: z.string().min(12).max(256).optional(),
});

/** The CLI's configuration: only the database. */
export type CliEnv = z.infer<typeof cliEnvSchema>;

/** Parses the CLI's variables; throws one message that lists every problem. */
export function loadCliEnv(source: Record<string, string | undefined> = process.env): CliEnv {
  const parsed = cliEnvSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  throw new Error(
    `invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`,
  );
}
