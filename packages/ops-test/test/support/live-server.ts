import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
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

/** A real server on real Redis and MariaDB, to scrape /metrics from. */
export interface LiveServer {
  readonly url: string;
  readonly server: RunningServer;
  /** GET /metrics: the Prometheus text. */
  scrape(): Promise<string>;
  /** Drives lock calls of every outcome the metrics count; returns the scrapes taken meanwhile. */
  exercise(): Promise<string[]>;
  close(): Promise<void>;
}

/** Runs `call` again while the server answers QUOTA_EXCEEDED (its token bucket refills). */
async function unthrottled<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const data = (error as { data?: { wardenCode?: string; retryAfterMs?: number } }).data;
      if (data?.wardenCode !== "QUOTA_EXCEEDED" || attempt >= 50) throw error;
      await sleep(Math.max(10, data.retryAfterMs ?? 10));
    }
  }
}

function uid(): string {
  return randomBytes(4).toString("hex");
}

export async function startLiveServer(): Promise<LiveServer> {
  const redis: StandaloneRedis = await startRedis();
  const db: TestDatabase = await createTestDatabase();
  await migrate(db.url);
  const spoolDir = await mkdtemp(join(tmpdir(), "warden-ops-spool-"));
  const port = await freePort();
  const operator = { username: `ops-${uid()}`, password: `ops-test-password-${uid()}` };
  // Scraped as deploy/prometheus/README.md configures Prometheus: with the bearer token.
  const metricsToken = randomBytes(24).toString("base64url");
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
      WARDEN_INSTANCE_ID: `ops-test-${uid()}`,
      WARDEN_ADMIN_USER: operator.username,
      WARDEN_ADMIN_PASSWORD: operator.password,
      WARDEN_METRICS_TOKEN: metricsToken,
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const trpc = `${url}/trpc`;

  async function tenant(requestsPerSecond: number): Promise<TRPCClient<AppRouter>> {
    const id = `ops-${uid()}`;
    const key = `wdn_${randomBytes(32).toString("base64url")}`;
    await server.services.prisma.tenant.create({
      data: { id, name: id, requestsPerSecond },
      select: { id: true },
    });
    await server.services.prisma.apiKey.create({
      data: {
        id: randomBytes(12).toString("hex"),
        tenantId: id,
        name: "ops tests",
        prefix: key.slice(0, 12),
        hash: createHash("sha256").update(key, "utf8").digest("hex"),
        scopes: "lock,admin",
      },
      select: { id: true },
    });
    return createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: trpc,
          headers: { authorization: `Bearer ${key}`, "x-warden-client-id": `ops-${id}` },
        }),
      ],
    });
  }

  /** An operator session over HTTP, as the console has it (cookie + same origin). */
  async function operatorClient(): Promise<TRPCClient<AppRouter>> {
    let cookie = "";
    const withSession: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("origin", url);
      if (cookie) headers.set("cookie", cookie);
      const response = await fetch(input, { ...init, headers });
      for (const set of response.headers.getSetCookie()) cookie = set.split(";")[0]!;
      return response;
    };
    const api = createTRPCClient<AppRouter>({
      links: [httpLink({ url: trpc, fetch: withSession })],
    });
    await api.auth.login.mutate(operator);
    return api;
  }

  const scrape = async () => {
    const response = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
    return response.text();
  };

  return {
    url,
    server,
    scrape,
    async exercise() {
      const api = await tenant(100_000);
      const resource = `ops.metrics.${uid()}`;
      /** Registers a mutex resource `name` with the policy's other fields at their defaults. */
      const register = (
        name: string,
        policy: { defaultLeaseMs: number; expectedHoldMs: number | null; waitReplicas: number },
        description: string,
      ) =>
        unthrottled(() =>
          api.resource.create.mutate({
            name,
            maxLeaseMs: 60_000,
            maxRenewals: null,
            degrade: true,
            localFallback: "deny",
            fair: false,
            description,
            ...policy,
          }),
        );
      await register(
        resource,
        { defaultLeaseMs: 5_000, expectedHoldMs: 1_000, waitReplicas: 0 },
        "ops metrics test",
      );
      const key = { resource, businessKey: "k1" };
      const acquire = (ownerId: string, more: { leaseMs?: number; waitMs?: number } = {}) =>
        unthrottled(() => api.lock.acquire.mutate({ ...key, ownerId, ...more }));
      const granted = async (ownerId: string, more: { leaseMs?: number; waitMs?: number } = {}) => {
        const result = await acquire(ownerId, more);
        if (!result.granted) throw new Error(`the acquire of ${ownerId} was refused`);
        return result;
      };
      const release = (lock: { lockId: string; tier: "redis" | "mysql" | "local" }) =>
        unthrottled(() =>
          api.lock.release.mutate({ ...key, lockId: lock.lockId, tier: lock.tier }),
        );
      const scrapes: string[] = [];

      // A hold past 3× its resource's expectedHoldMs (1 ms): warden_long_holds exists now.
      const slowResource = `ops.long.${uid()}`;
      await register(
        slowResource,
        { defaultLeaseMs: 10_000, expectedHoldMs: 1, waitReplicas: 0 },
        "ops long-hold test",
      );
      const slowKey = { resource: slowResource, businessKey: "slow" };
      const long = await unthrottled(() => api.lock.acquire.mutate({ ...slowKey, ownerId: "o" }));
      if (!long.granted) throw new Error("the long hold was refused");
      // A holder, a refused try and a queued waiter: live locks and waiters exist now.
      const held = await granted("owner-a", { leaseMs: 10_000 });
      await acquire("owner-b");
      const waiting = granted("owner-c", { waitMs: 10_000 });
      waiting.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
      for (let i = 0; i < 50 && !(await scrape()).includes("warden_waiters{"); i++) await sleep(50);
      scrapes.push(await scrape());
      await unthrottled(() =>
        api.lock.release.mutate({ ...slowKey, lockId: long.lockId, tier: long.tier }),
      );
      await release(held);
      const second = await waiting;
      await release(second);
      // A release of a lease already gone (NOT_HOLDER), and a renewal refused.
      await release(second).catch(() => undefined);
      const short = await granted("owner-d", { leaseMs: 300 });
      await sleep(500);
      await unthrottled(() =>
        api.lock.extend.mutate({ ...key, lockId: short.lockId, tier: short.tier }),
      ).catch(() => undefined);
      // A stale-fence report, an operator's force-release, a refused login.
      await unthrottled(() =>
        api.lock.reportStaleFence.mutate({
          ...key,
          fence: "1",
          currentFence: "2",
          target: "ops:test",
        }),
      );
      await granted("owner-e");
      const ops = await operatorClient();
      await ops.holder.forceRelease.mutate({ ...key, reason: "ops metrics test" });
      await api.auth.login
        .mutate({ username: operator.username, password: "not-the-password" })
        .catch(() => undefined);
      // A grant no replica acknowledged (this Redis has none): undone, REPLICATION_TIMEOUT.
      const replicated = `ops.replicated.${uid()}`;
      await register(
        replicated,
        { defaultLeaseMs: 5_000, expectedHoldMs: null, waitReplicas: 1 },
        "ops replication test",
      );
      await unthrottled(() =>
        api.lock.acquire.mutate({ resource: replicated, businessKey: "k", ownerId: "o" }),
      ).catch(() => undefined);
      // A tenant over its quota.
      const slow = await tenant(1);
      await Promise.allSettled(Array.from({ length: 30 }, () => slow.tier.state.query()));
      await sleep(200); // the audit writer's batch
      scrapes.push(await scrape());
      return scrapes;
    },
    async close() {
      await server.stop();
      await redis.stop();
      await db.drop();
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
}

/** Names of the samples in a Prometheus text exposition (histograms as `_bucket`/`_sum`/`_count`). */
export function sampleNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (match) names.add(match[1]!);
  }
  return names;
}

/** Label sets of one sample name in an exposition, e.g. `[{resource: "a", tier: "redis"}]`. */
export function labelsOf(text: string, name: string): Record<string, string>[] {
  const sets: Record<string, string>[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.indexOf("}"));
    const labels: Record<string, string> = {};
    for (const match of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[match[1]!] = match[2]!;
    }
    sets.push(labels);
  }
  return sets;
}
