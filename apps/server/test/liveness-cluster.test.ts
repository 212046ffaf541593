// Liveness-bound release (docs/decisions/0150) on a 6-node Redis Cluster: the connection
// records' scripts touch only `{live}` keys, one slot, so they run there as on one Redis.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink, type TRPCClient } from "@trpc/client";
import { migrate } from "@warden/db";
import {
  createTestDatabase,
  freePort,
  startCluster,
  type RedisClusterGroup,
  type TestDatabase,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import WebSocket from "ws";
import { loadEnv } from "../src/env.js";
import { LIVENESS_ACTOR } from "../src/liveness/liveness-monitor.js";
import { LOCK_SUBPROTOCOL } from "../src/protocol/wire.js";
import type { AppRouter } from "../src/routers/_app.js";
import { startServer, type RunningServer } from "../src/start-server.js";
import { eventually } from "./support/fleet.js";
import { uid } from "./support/harness.js";

let cluster: RedisClusterGroup;
let db: TestDatabase;
let server: RunningServer;
let spoolDir: string;
let url: string;
let apiKey: string;
let admin: TRPCClient<AppRouter>;

beforeAll(async () => {
  [cluster, db] = await Promise.all([startCluster(), createTestDatabase()]);
  await migrate(db.url);
  spoolDir = await mkdtemp(join(tmpdir(), "warden-live-cluster-"));
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
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `live-cluster-${uid()}`,
    }),
  );
  url = `http://127.0.0.1:${port}`;
  const tenantId = `lc-${uid()}`;
  apiKey = `wdn_${randomBytes(32).toString("base64url")}`;
  await server.services.prisma.tenant.create({
    data: { id: tenantId, name: tenantId, requestsPerSecond: 100_000 },
    select: { id: true },
  });
  await server.services.prisma.apiKey.create({
    data: {
      id: randomBytes(12).toString("hex"),
      tenantId,
      name: "liveness cluster tests",
      prefix: apiKey.slice(0, 12),
      hash: createHash("sha256").update(apiKey, "utf8").digest("hex"),
      scopes: "lock,admin",
    },
    select: { id: true },
  });
  admin = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": "admin" },
      }),
    ],
  });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await cluster?.stop();
  await db?.drop();
  if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
});

async function holdThenClose(resource: string, clientId: string) {
  const ws = new WebSocket(`${url.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL);
  const replies: unknown[][] = [];
  ws.on("message", (data: Buffer) => replies.push(...(JSON.parse(data.toString()) as unknown[][])));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ hello: { apiKey, clientId } }));
  ws.send(
    JSON.stringify([[1, "acquire", { resource, businessKey: "k", ownerId: "o", leaseMs: 60_000 }]]),
  );
  expect(await eventually(async () => replies.some((entry) => entry[0] === 1), 10_000)).toBe(true);
  const grant = replies.find((entry) => entry[0] === 1)![2] as { lockId: string; granted: boolean };
  expect(grant.granted).toBe(true);
  const closed = new Promise((resolve) => ws.once("close", resolve));
  ws.close();
  await closed;
  return grant.lockId;
}

it("a client gone past the grace loses its lock; a resource without the setting keeps it", async () => {
  const common = {
    defaultLeaseMs: 10_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny" as const,
    fair: false,
    waitReplicas: 0,
    description: "",
  };
  const released = `lc:${uid()}`;
  const kept = `lc:${uid()}`;
  await admin.resource.create.mutate({ ...common, name: released, releaseOnDisconnectMs: 200 });
  await admin.resource.create.mutate({ ...common, name: kept });
  const lockId = await holdThenClose(released, `c-${uid()}`);
  const keptId = await holdThenClose(kept, `c-${uid()}`);
  expect(
    await eventually(
      async () =>
        (await admin.lock.inspect.query({ resource: released, businessKey: "k" })).lease === null,
      15_000,
    ),
  ).toBe(true);
  expect(
    await eventually(async () => {
      const row = await server.services.prisma.lockHold.findUnique({ where: { lockId } });
      return row?.actor === LIVENESS_ACTOR && row.endType === "force-released";
    }),
  ).toBe(true);
  expect((await admin.lock.inspect.query({ resource: kept, businessKey: "k" })).lease?.lockId).toBe(
    keptId,
  );
});
