/**
 * The SDK against a real server on a 6-node Redis Cluster (testkit: three masters with one
 * replica each): exclusion, a wait woken by the release, renewals past several leases
 * (the bulk renewal spans keys on every master), and a fence that grows across a failover
 * of a key's master.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { migrate } from "@warden/db";
import { loadEnv, startServer, type AppRouter, type RunningServer } from "@warden/server";
import {
  createTestDatabase,
  freePort,
  startCluster,
  type RedisClusterGroup,
  type RedisNode,
  type TestDatabase,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createWarden, type Lock, type Warden } from "../src/index.js";
import { uid } from "./support/stack.js";
import { delay } from "./support/until.js";

const FENCE_COUNTER_SPAN = 2n ** 33n;

let cluster: RedisClusterGroup;
let db: TestDatabase;
let server: RunningServer;
let spoolDir: string;
let url: string;
let apiKey: string;
const clients: Warden[] = [];

function client(): Warden {
  const warden = createWarden({ url, apiKey, requestTimeoutMs: 3_000, connectTimeoutMs: 2_000 });
  clients.push(warden);
  return warden;
}

async function resource(leaseMs = 5_000): Promise<string> {
  const name = `cl:${uid()}`;
  const admin = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": "sdk-cluster-admin" },
      }),
    ],
  });
  await admin.resource.create.mutate({
    name,
    defaultLeaseMs: leaseMs,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "sdk cluster test",
  });
  return name;
}

async function keysOn(node: RedisNode, pattern: string): Promise<string[]> {
  const redis = node.client({ maxRetriesPerRequest: 1 });
  try {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1_000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== "0");
    return found;
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  [cluster, db] = await Promise.all([startCluster(), createTestDatabase()]);
  await migrate(db.url);
  spoolDir = await mkdtemp(join(tmpdir(), "warden-sdk-cluster-spool-"));
  const port = await freePort();
  server = await startServer(
    loadEnv({
      DATABASE_URL: db.url,
      WARDEN_REDIS_CLUSTER_NODES: cluster.startupNodes.map((n) => `${n.host}:${n.port}`).join(","),
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(port),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spoolDir,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_TIER_PROBE_INTERVAL_MS: "200",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `sdk-cluster-${uid()}`,
    }),
  );
  url = `http://127.0.0.1:${port}`;
  const tenantId = `sdkcl-${uid()}`;
  apiKey = `wdn_${randomBytes(32).toString("base64url")}`;
  await server.services.prisma.tenant.create({
    data: { id: tenantId, name: tenantId, requestsPerSecond: 100_000 },
    select: { id: true },
  });
  await server.services.prisma.apiKey.create({
    data: {
      id: randomBytes(12).toString("hex"),
      tenantId,
      name: "sdk cluster tests",
      prefix: apiKey.slice(0, 12),
      hash: createHash("sha256").update(apiKey, "utf8").digest("hex"),
      scopes: "lock,admin",
    },
    select: { id: true },
  });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await server?.stop();
  await cluster?.stop();
  await db?.drop();
  if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
});

test("one holder at a time; a waiter is woken by the release with a larger fence", async () => {
  const name = await resource();
  const [a, b] = [client(), client()];
  const held = await a.acquire(name, "k");
  expect(held.tier).toBe("redis");
  expect(await b.tryAcquire(name, "k")).toBeNull();
  const waiting = b.acquire(name, "k", { waitMs: 20_000 });
  await delay(300);
  const releasedAt = performance.now();
  await held.release();
  const next = await waiting;
  expect(performance.now() - releasedAt).toBeLessThan(4_000);
  expect(BigInt(next.fence!)).toBeGreaterThan(BigInt(held.fence!));
  await next.release();
  expect(await a.inspect(name, "k")).toBeNull();
});

test("locks on keys of every master are renewed past several leases", async () => {
  const name = await resource(1_500);
  const warden = client();
  const locks: Lock[] = await Promise.all(
    Array.from({ length: 24 }, (_, i) => warden.acquire(name, `renew-${i}`)),
  );
  const masters = await cluster.masters();
  const perMaster = await Promise.all(masters.map((m) => keysOn(m, `w:{*${name}#*}:l:renew-*`)));
  expect(perMaster.filter((keys) => keys.length > 0)).toHaveLength(3);
  await delay(5_000);
  for (const lock of locks) {
    expect(lock.signal.aborted).toBe(false);
    expect(lock.renewals).toBeGreaterThan(0);
  }
  const other = client();
  expect(await other.tryAcquire(name, "renew-0")).toBeNull();
  await Promise.all(locks.map((lock) => lock.release()));
  expect(await other.inspect(name, "renew-0")).toBeNull();
});

test("the fence grows across a failover of the key's master", { timeout: 90_000 }, async () => {
  const name = await resource();
  const warden = client();
  const first = await warden.acquire(name, "k");
  await first.release();
  const masters = await cluster.masters();
  const owners = await Promise.all(masters.map((m) => keysOn(m, `w:{*${name}#*}:f`)));
  const master = masters[owners.findIndex((keys) => keys.length > 0)];
  if (!master) throw new Error("no master holds the resource's fence counter");
  await cluster.failoverMaster(master, { how: "kill" });

  let after: Lock | null = null;
  const deadline = performance.now() + 30_000;
  while (!after && performance.now() < deadline) {
    after = await warden.tryAcquire(name, "k").catch(() => null);
    if (!after) await delay(200);
  }
  if (!after) throw new Error("no grant after the failover");
  expect(after.tier).toBe("redis");
  expect(BigInt(after.fence!)).toBeGreaterThan(BigInt(first.fence!));
  expect(BigInt(after.fence!) / FENCE_COUNTER_SPAN).toBeGreaterThan(
    BigInt(first.fence!) / FENCE_COUNTER_SPAN,
  );
  await after.release();
  await master.restart();
});
