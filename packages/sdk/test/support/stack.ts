import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink, type TRPCClient } from "@trpc/client";
import { migrate } from "@warden/db";
import { loadEnv, startServer, type AppRouter, type RunningServer } from "@warden/server";
import {
  createTestDatabase,
  freePort,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { createWarden, type Warden, type WardenOptions } from "../../src/index.js";

/** A resource policy as resource.create takes it (everything but the name is optional here). */
export interface PolicyInput {
  readonly defaultLeaseMs?: number;
  readonly maxLeaseMs?: number;
  readonly maxRenewals?: number | null;
  readonly expectedHoldMs?: number | null;
  readonly degrade?: boolean;
  readonly localFallback?: "deny" | "allow";
  readonly fair?: boolean;
  readonly waitReplicas?: number;
  /** `semaphore` needs `permits` (docs/decisions/0161). */
  readonly kind?: "mutex" | "semaphore" | "rwlock";
  readonly permits?: number | null;
  /** rwlock only (docs/decisions/0166). */
  readonly writerPreference?: boolean;
}

/** A real Warden server on real Redis and MariaDB, a tenant with an API key, and helpers. */
export interface Stack {
  readonly redis: StandaloneRedis;
  readonly db: TestDatabase;
  /** `http://127.0.0.1:<port>`, the same across restarts. */
  readonly url: string;
  readonly apiKey: string;
  readonly tenantId: string;
  /** The running server; null while stopped. */
  server(): RunningServer;
  /** The tenant's own admin client over HTTP (resources, events, waiters). */
  readonly admin: TRPCClient<AppRouter>;
  /** Registers a resource with a random suffix; returns its name. */
  resource(prefix: string, policy?: PolicyInput): Promise<string>;
  /** Registers a resource under exactly `name` (the recipes use fixed names). */
  register(name: string, policy?: PolicyInput): Promise<void>;
  /** A Warden client of the tenant, closed by `close()`. */
  client(options?: Partial<WardenOptions>): Warden;
  /** Stops the server (graceful). */
  stopServer(): Promise<void>;
  /** Starts it again on the same port, Redis and database. */
  startServer(): Promise<void>;
  close(): Promise<void>;
}

/** A short random suffix, so tests never collide. */
export function uid(): string {
  return randomBytes(4).toString("hex");
}

const DEFAULT_POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 60_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "sdk test",
} as const;

/** Starts Redis, a fresh migrated database and a server, and makes a tenant with a key. */
export async function startStack(extraEnv: Record<string, string> = {}): Promise<Stack> {
  const redis = await startRedis();
  const db = await createTestDatabase();
  await migrate(db.url);
  const spoolDir = await mkdtemp(join(tmpdir(), "warden-sdk-spool-"));
  const port = await freePort();
  const env = loadEnv({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    WARDEN_HOST: "127.0.0.1",
    WARDEN_PORT: String(port),
    WARDEN_LOG_LEVEL: "fatal",
    WARDEN_AUDIT_SPOOL_DIR: spoolDir,
    WARDEN_AUDIT_FLUSH_MS: "50",
    WARDEN_TIER_PROBE_INTERVAL_MS: "200",
    WARDEN_SHUTDOWN_GRACE_MS: "500",
    WARDEN_INSTANCE_ID: `sdk-test-${uid()}`,
    ...extraEnv,
  });
  let server: RunningServer | null = await startServer(env);
  const url = `http://127.0.0.1:${port}`;

  const tenantId = `sdk-${uid()}`;
  const apiKey = `wdn_${randomBytes(32).toString("base64url")}`;
  await server.services.prisma.tenant.create({
    data: { id: tenantId, name: tenantId, requestsPerSecond: 100_000 },
    select: { id: true },
  });
  await server.services.prisma.apiKey.create({
    data: {
      id: randomBytes(12).toString("hex"),
      tenantId,
      name: "sdk tests",
      prefix: apiKey.slice(0, 12),
      hash: createHash("sha256").update(apiKey, "utf8").digest("hex"),
      // It also registers the resources: a policy change needs the admin scope.
      scopes: "lock,admin",
    },
    select: { id: true },
  });
  const admin = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": "sdk-test-admin" },
      }),
    ],
  });
  const clients: Warden[] = [];

  return {
    redis,
    db,
    url,
    apiKey,
    tenantId,
    admin,
    server: () => {
      if (!server) throw new Error("the server is stopped");
      return server;
    },
    async resource(prefix, policy = {}) {
      const name = `${prefix}:${uid()}`;
      await admin.resource.create.mutate({ ...DEFAULT_POLICY, ...policy, name });
      return name;
    },
    async register(name, policy = {}) {
      await admin.resource.create.mutate({ ...DEFAULT_POLICY, ...policy, name });
    },
    client(options = {}) {
      const warden = createWarden({
        url,
        apiKey,
        requestTimeoutMs: 3_000,
        connectTimeoutMs: 2_000,
        ...options,
      });
      clients.push(warden);
      return warden;
    },
    async stopServer() {
      const running = server;
      server = null;
      await running?.stop();
    },
    async startServer() {
      server ??= await startServer(env);
    },
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await server?.stop();
      server = null;
      await redis.stop();
      await db.drop();
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
}
