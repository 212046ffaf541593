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

/** A real server on real Redis and MariaDB, with a tenant (API key) and an admin operator. */
export interface Stack {
  readonly url: string;
  readonly redis: StandaloneRedis;
  readonly db: TestDatabase;
  readonly server: RunningServer;
  readonly tenant: Tenant;
  readonly operator: { readonly username: string; readonly password: string };
  /** Stops the server (graceful), as an outage would look to clients; `close()` still cleans up. */
  stopServer(): Promise<void>;
  /** Another tenant, to check that its names behave like unknown ones. */
  newTenant(): Promise<Tenant>;
  close(): Promise<void>;
}

export interface Tenant {
  readonly id: string;
  /** A key with the default `lock` scope, what the CLI is given. */
  readonly apiKey: string;
  /** The tenant's own tRPC client over HTTP, with an admin-scoped key. */
  readonly api: TRPCClient<AppRouter>;
  /** Registers a resource (`<prefix>:<random>`) and returns its name. */
  resource(prefix: string, policy?: { defaultLeaseMs?: number; fair?: boolean }): Promise<string>;
}

/** A short random suffix, so names never collide. */
export function uid(): string {
  return randomBytes(4).toString("hex");
}

export async function startStack(): Promise<Stack> {
  const redis = await startRedis();
  const db = await createTestDatabase();
  await migrate(db.url);
  const spoolDir = await mkdtemp(join(tmpdir(), "warden-cli-spool-"));
  const port = await freePort();
  const operator = { username: `ops-${uid()}`, password: `cli-test-password-${uid()}` };
  const server = await startServer(
    loadEnv({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(port),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spoolDir,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `cli-test-${uid()}`,
      WARDEN_ADMIN_USER: operator.username,
      WARDEN_ADMIN_PASSWORD: operator.password,
    }),
  );
  const url = `http://127.0.0.1:${port}`;

  async function newTenant(): Promise<Tenant> {
    const id = `cli-${uid()}`;
    await server.services.prisma.tenant.create({
      data: { id, name: id, requestsPerSecond: 100_000 },
      select: { id: true },
    });
    const makeKey = async (scopes: string) => {
      const key = `wdn_${randomBytes(32).toString("base64url")}`;
      await server.services.prisma.apiKey.create({
        data: {
          id: randomBytes(12).toString("hex"),
          tenantId: id,
          name: `cli tests (${scopes})`,
          prefix: key.slice(0, 12),
          hash: createHash("sha256").update(key, "utf8").digest("hex"),
          scopes,
        },
        select: { id: true },
      });
      return key;
    };
    // The CLI runs with a plain lock key; the test registers resources with an admin one.
    const apiKey = await makeKey("lock");
    const adminKey = await makeKey("lock,admin");
    const api = createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: `${url}/trpc`,
          headers: { authorization: `Bearer ${adminKey}`, "x-warden-client-id": "cli-test-admin" },
        }),
      ],
    });
    return {
      id,
      apiKey,
      api,
      async resource(prefix, policy = {}) {
        const name = `${prefix}.${uid()}`;
        await api.resource.create.mutate({
          name,
          defaultLeaseMs: policy.defaultLeaseMs ?? 5_000,
          maxLeaseMs: 60_000,
          maxRenewals: null,
          expectedHoldMs: null,
          degrade: true,
          localFallback: "deny",
          fair: policy.fair ?? false,
          waitReplicas: 0,
          description: "cli test",
        });
        return name;
      },
    };
  }

  const tenant = await newTenant();
  let stopped: Promise<void> | null = null;
  const stopServer = () => (stopped ??= server.stop());
  return {
    url,
    redis,
    db,
    server,
    tenant,
    operator,
    newTenant,
    stopServer,
    async close() {
      await stopServer();
      await redis.stop();
      await db.drop();
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
}
