import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTieredLocks, openTieredSemaphores } from "@warden/core";
import { createPrismaClient, migrate, type PrismaClient } from "@warden/db";
import {
  createTestDatabase,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { pino } from "pino";
import { generateApiKey } from "../../src/auth/api-key.js";
import { hashPassword } from "../../src/auth/password.js";
import { EventHub } from "../../src/audit/event-hub.js";
import { createContextInner, type RequestMeta, type Services } from "../../src/context.js";
import type { OperatorRole } from "../../src/auth/principal.js";
import { createCaller } from "../../src/routers/_app.js";
import { RedisReleaseBridge } from "../../src/locks/redis-release-bridge.js";
import { RedisFleetTransport } from "../../src/live/redis-fleet-transport.js";
import { createServices, type ServicesOptions } from "../../src/services.js";
import { openRwLocks } from "../../src/usecases/rw-stores.js";

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  /** Use this MySQL server instead of the shared one (e.g. a private MariaDB to stop). */
  readonly mysqlServerUrl?: string;
  readonly audit?: Partial<ServicesOptions["audit"]>;
  readonly consoleOrigins?: string[];
  /** Share another harness's Redis and database (a second server instance). */
  readonly shareWith?: Harness;
  /** Carry release notifications between instances over Redis pub/sub. */
  readonly releaseBridge?: boolean;
  /** Share lock events, live feed and statistics with other instances over Redis. */
  readonly fleet?: boolean;
}

/** A server's services on real Redis and a fresh migrated database, plus helpers. */
export interface Harness {
  readonly services: Services;
  readonly prisma: PrismaClient;
  readonly redis: StandaloneRedis;
  readonly db: TestDatabase;
  readonly spoolDir: string;
  /** A caller with no credentials. */
  anonymous(meta?: Partial<RequestMeta>): ReturnType<typeof createCaller>;
  /**
   * Creates a tenant with an API key; `caller` acts as one SDK client of it. The key has
   * the `lock` and `admin` scopes unless `scopes` says otherwise (tests register their
   * resources with it).
   */
  tenant(id?: string, requestsPerSecond?: number, scopes?: string): Promise<TenantHandle>;
  /** Creates an operator and logs it in; `caller` carries its session as a cookie would. */
  operator(role: OperatorRole, meta?: Partial<RequestMeta>): Promise<OperatorHandle>;
  /** Closes the services only (graceful shutdown); `close()` still stops the servers. */
  closeServices(): Promise<void>;
  close(): Promise<void>;
}

export interface TenantHandle {
  readonly id: string;
  readonly key: string;
  readonly keyId: string;
  caller(meta?: Partial<RequestMeta>): ReturnType<typeof createCaller>;
}

export interface OperatorHandle {
  readonly username: string;
  readonly sessionToken: string;
  caller(meta?: Partial<RequestMeta>): ReturnType<typeof createCaller>;
}

/** A short random suffix for names, so tests never collide. */
export function uid(): string {
  return randomBytes(4).toString("hex");
}

// Operators are created with a cheap hash here; the real scrypt cost is tested once.
let passwordHash: Promise<string> | undefined;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const shared = options.shareWith;
  const redis = shared?.redis ?? (await startRedis());
  const db =
    shared?.db ??
    (await createTestDatabase(options.mysqlServerUrl ? { url: options.mysqlServerUrl } : {}));
  if (!shared) await migrate(db.url);
  const instanceId = `test-${uid()}`;
  const prisma = createPrismaClient(db.url);
  const spoolDir = await mkdtemp(join(tmpdir(), "warden-spool-"));
  const hub = new EventHub();
  const logger = pino({ level: process.env.WARDEN_TEST_LOG_LEVEL ?? "silent" });
  const locks = await openTieredLocks({
    redis: { mode: "standalone", url: redis.url },
    mysqlUrl: db.url,
    instanceId,
    onEvent: hub.sink,
  });
  const semaphores = await openTieredSemaphores(locks, {
    redis: { mode: "standalone", url: redis.url },
    mysqlUrl: db.url,
    onEvent: hub.sink,
    // Often, so a test sees dead holders' MySQL rows go (docs/decisions/0218).
    sweepEveryMs: 500,
  });
  const rwLocks = await openRwLocks(locks, {
    redis: { mode: "standalone", url: redis.url },
    mysqlUrl: db.url,
    onEvent: hub.sink,
    // Often, so a test sees dead holders' MySQL rows go (docs/decisions/0166).
    sweepEveryMs: 500,
  });
  const handle = await createServices({
    config: {
      instanceId: "test",
      consoleOrigins: options.consoleOrigins ?? ["http://console.test"],
      cookieSecure: false,
      sessionTtlMs: 3_600_000,
      loginAttemptsPerMinute: 3,
    },
    prisma,
    mysqlUrl: db.url,
    locks,
    semaphores,
    rwLocks,
    hub,
    logger,
    audit: {
      spoolDir,
      spoolMaxBytes: 64 * 1024 * 1024,
      flushMs: 50,
      retentionDays: 30,
      ...options.audit,
    },
    // Login throttles and quotas in Redis, as in production (the fleet shares them).
    throttleRedis: { mode: "standalone", url: redis.url },
    ...(options.releaseBridge
      ? {
          releaseBridge: new RedisReleaseBridge({ mode: "standalone", url: redis.url }, instanceId),
        }
      : {}),
    ...(options.fleet
      ? { fleetTransport: new RedisFleetTransport({ mode: "standalone", url: redis.url }) }
      : {}),
  });
  const { services } = handle;

  const harness: Harness = {
    services,
    prisma,
    redis,
    db,
    spoolDir,
    anonymous: (meta = {}) => createCaller(createContextInner(services, meta)),
    async tenant(id = `t-${uid()}`, requestsPerSecond = 100_000, scopes = "lock,admin") {
      await prisma.tenant.create({
        data: { id, name: id, requestsPerSecond },
        select: { id: true },
      });
      const made = generateApiKey();
      await prisma.apiKey.create({
        data: {
          id: made.id,
          tenantId: id,
          name: "test",
          prefix: made.prefix,
          hash: made.hash,
          scopes,
        },
        select: { id: true },
      });
      return {
        id,
        key: made.key,
        keyId: made.id,
        caller: (meta = {}) =>
          createCaller(
            createContextInner(services, { apiKey: made.key, clientId: `client-${id}`, ...meta }),
          ),
      };
    },
    async operator(role, meta = {}) {
      const username = `${role}-${uid()}`;
      passwordHash ??= hashPassword("correct horse battery staple");
      await prisma.operator.create({
        data: { username, passwordHash: await passwordHash, role },
        select: { id: true },
      });
      const login = await createCaller(
        createContextInner(services, { ip: `10.0.0.${Math.floor(Math.random() * 250)}` }),
      ).auth.login({
        username,
        password: "correct horse battery staple",
      });
      const sessionToken = login.sessionToken!;
      return {
        username,
        sessionToken,
        caller: (extra = {}) =>
          createCaller(
            createContextInner(services, {
              sessionToken,
              origin: "http://console.test",
              host: "warden.test",
              ...meta,
              ...extra,
            }),
          ),
      };
    },
    closeServices: () => handle.close(),
    async close() {
      await handle.close();
      if (!shared) {
        await redis.stop();
        await db.drop();
      }
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Registers a resource for a tenant through the API and returns its name. */
export async function registerResource(
  tenant: TenantHandle,
  policy: Partial<{
    defaultLeaseMs: number;
    maxLeaseMs: number;
    maxRenewals: number;
    fair: boolean;
    expectedHoldMs: number;
    localFallback: "deny" | "allow";
    kind: "mutex" | "semaphore" | "rwlock";
    permits: number;
  }> = {},
): Promise<string> {
  const name = `res:${uid()}`;
  await tenant.caller().resource.create({
    name,
    ...(policy.kind === undefined ? {} : { kind: policy.kind }),
    ...(policy.permits === undefined ? {} : { permits: policy.permits }),
    defaultLeaseMs: policy.defaultLeaseMs ?? 5_000,
    maxLeaseMs: policy.maxLeaseMs ?? 30_000,
    maxRenewals: policy.maxRenewals ?? null,
    expectedHoldMs: policy.expectedHoldMs ?? null,
    degrade: true,
    localFallback: policy.localFallback ?? "deny",
    fair: policy.fair ?? false,
    waitReplicas: 0,
    description: "test",
  });
  return name;
}
