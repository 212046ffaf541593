// Three server instances on one Redis (docs/decisions/0135): instance.list answers the same
// fleet on each; connections opened on one are seen from another; a clean shutdown leaves
// the list at once, a killed process once its announcement expires; without Redis an
// instance lists itself only, and says so.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "@warden/db";
import {
  createTestDatabase,
  freePort,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebSocket } from "ws";
import { generateApiKey } from "../src/auth/api-key.js";
import { SESSION_COOKIE } from "../src/auth/session-auth.js";
import { createContextInner } from "../src/context.js";
import { loadEnv } from "../src/env.js";
import { LOCK_SUBPROTOCOL } from "../src/protocol/wire.js";
import { createCaller } from "../src/routers/_app.js";
import { startServer, type RunningServer } from "../src/start-server.js";
import { uid } from "./support/harness.js";

const ADMIN = { username: "fleet-admin", password: "a long enough admin password" };
const serverDir = fileURLToPath(new URL("..", import.meta.url));

let redis: StandaloneRedis;
let db: TestDatabase;
let spool: string;
const servers = new Map<string, RunningServer>();
let sessionToken: string;
let child: ChildProcess | undefined;

function rawEnv(name: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    WARDEN_HOST: "127.0.0.1",
    WARDEN_PORT: String(port),
    WARDEN_LOG_LEVEL: "fatal",
    WARDEN_AUDIT_SPOOL_DIR: join(spool, name),
    WARDEN_INSTANCE_ID: name,
    WARDEN_SHUTDOWN_GRACE_MS: "500",
    WARDEN_ADMIN_USER: ADMIN.username,
    WARDEN_ADMIN_PASSWORD: ADMIN.password,
  };
}

async function start(name: string): Promise<RunningServer> {
  const server = await startServer(loadEnv(rawEnv(name, await freePort())));
  servers.set(name, server);
  return server;
}

function list(server: RunningServer) {
  return createCaller(createContextInner(server.services, { sessionToken })).instance.list();
}

async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const names = { a: `a-${uid()}`, b: `b-${uid()}`, c: `c-${uid()}` };

beforeAll(async () => {
  redis = await startRedis();
  db = await createTestDatabase();
  await migrate(db.url);
  spool = await mkdtemp(join(tmpdir(), "warden-instances-"));
  await Promise.all(Object.values(names).map((name) => start(name)));
  const login = await createCaller(
    createContextInner(servers.get(names.a)!.services, { ip: "10.9.9.9" }),
  ).auth.login(ADMIN);
  sessionToken = login.sessionToken!;
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await Promise.allSettled([...servers.values()].map((server) => server.stop()));
  await redis?.stop();
  await db?.drop();
  if (spool) await rm(spool, { recursive: true, force: true });
});

it("instance.list answers the same three instances on each, each its own entry fresh", async () => {
  const all = [names.a, names.b, names.c];
  const answers = await Promise.all(
    all.map((name) =>
      eventually(
        () => list(servers.get(name)!),
        (answer) => answer.instances.length === 3,
      ),
    ),
  );
  const ids = answers.map((answer) => answer.instances.map((entry) => entry.id).sort());
  expect(ids[1]).toEqual(ids[0]);
  expect(ids[2]).toEqual(ids[0]);
  answers.forEach((answer, i) => {
    expect(answer.source).toBe("redis");
    expect(answer.degradedReason).toBeNull();
    expect(answer.instances.map((entry) => entry.name).sort()).toEqual([...all].sort());
    // Own entry first, marked.
    expect(answer.instances[0]).toMatchObject({ name: all[i], self: true, ageMs: 0 });
    expect(answer.instances[0]!.id).toBe(answer.selfId);
    for (const entry of answer.instances) {
      expect(entry).toMatchObject({
        version: "0.1.0",
        pid: process.pid,
        stale: false,
        tierMismatch: false,
        tier: { tier: "redis" },
      });
      expect(entry.ageMs).toBeLessThanOrEqual(answer.staleAfterMs);
      expect(entry.uptimeMs).toBeGreaterThan(0);
    }
  });
  // Every instance follows the same tier-state version.
  const versions = new Set(answers[0]!.instances.map((entry) => entry.tier.version));
  expect(versions.size).toBe(1);
  // The gauge reports the fleet's size as seen at the last beat.
  const metrics = await eventually(
    () => servers.get(names.a)!.services.metrics.text(),
    (text) => /^warden_instances 3$/m.test(text),
  );
  expect(metrics).toMatch(/^warden_instances 3$/m);
});

it("a tenant's API key is refused: the fleet's hosts and connections are the operators'", async () => {
  const server = servers.get(names.a)!;
  const tenantId = `t-${uid()}`;
  const { prisma } = server.services;
  await prisma.tenant.create({ data: { id: tenantId, name: tenantId }, select: { id: true } });
  const made = generateApiKey();
  await prisma.apiKey.create({
    data: {
      id: made.id,
      tenantId,
      name: "k",
      prefix: made.prefix,
      hash: made.hash,
      scopes: "lock,admin",
    },
    select: { id: true },
  });
  const tenant = createCaller(createContextInner(server.services, { apiKey: made.key }));
  await expect(tenant.instance.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
});

it("connections opened on one instance are counted in its entry, as another instance lists it", async () => {
  const b = servers.get(names.b)!;
  const wsUrl = `${b.http.url.replace("http", "ws")}/trpc`;
  const opened = (ws: WebSocket) =>
    new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
  const lockSocket = new WebSocket(wsUrl, LOCK_SUBPROTOCOL);
  const trpcSocket = new WebSocket(wsUrl);
  await Promise.all([opened(lockSocket), opened(trpcSocket)]);
  const sse = new AbortController();
  const stream = await fetch(
    `${b.http.url}/trpc/live.events?input=${encodeURIComponent(JSON.stringify({}))}`,
    {
      headers: { cookie: `${SESSION_COOKIE}=${sessionToken}`, accept: "text/event-stream" },
      signal: sse.signal,
    },
  );
  expect(stream.status).toBe(200);
  const entryOfB = async () =>
    (await list(servers.get(names.a)!)).instances.find((entry) => entry.name === names.b);
  const seen = await eventually(entryOfB, (entry) => entry?.connections.sseStreams === 1);
  expect(seen?.connections).toEqual({ lockSockets: 1, trpcSockets: 1, sseStreams: 1 });

  lockSocket.close();
  trpcSocket.close();
  sse.abort();
  await stream.body?.cancel().catch(() => undefined);
  const after = await eventually(
    entryOfB,
    (entry) =>
      entry?.connections.lockSockets === 0 &&
      entry.connections.trpcSockets === 0 &&
      entry.connections.sseStreams === 0,
  );
  expect(after?.connections).toEqual({ lockSockets: 0, trpcSockets: 0, sseStreams: 0 });
});

it("a clean shutdown leaves the list at once", async () => {
  const c = servers.get(names.c)!;
  const before = await eventually(
    () => list(servers.get(names.a)!),
    (answer) => answer.instances.some((entry) => entry.name === names.c),
  );
  expect(before.instances.map((entry) => entry.name)).toContain(names.c);
  servers.delete(names.c);
  await c.stop();
  // No waiting: the entry was deleted before stop() returned.
  const a = await list(servers.get(names.a)!);
  const b = await list(servers.get(names.b)!);
  expect(a.instances.map((entry) => entry.name).sort()).toEqual([names.a, names.b].sort());
  expect(b.instances.map((entry) => entry.name).sort()).toEqual([names.a, names.b].sort());
});

it("a killed instance is shown stale, then disappears within its TTL", async () => {
  const name = `killed-${uid()}`;
  const port = await freePort();
  child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: serverDir,
    env: { ...process.env, ...rawEnv(name, port) },
    stdio: "ignore",
  });
  const a = servers.get(names.a)!;
  const withChild = await eventually(
    () => list(a),
    (answer) => answer.instances.some((entry) => entry.name === name),
    60_000,
  );
  const entry = withChild.instances.find((candidate) => candidate.name === name);
  expect(entry).toBeDefined();
  expect(entry!.pid).toBe(child.pid);
  const ttlMs = entry!.ttlMs;

  child.kill("SIGKILL");
  const killedAt = performance.now();
  let sawStale = false;
  const gone = await eventually(
    async () => {
      const answer = await list(a);
      const found = answer.instances.find((candidate) => candidate.name === name);
      if (found?.stale) sawStale = true;
      return found;
    },
    (found) => found === undefined,
    ttlMs + 5_000,
  );
  const elapsed = performance.now() - killedAt;
  expect(gone).toBeUndefined();
  expect(sawStale).toBe(true);
  // Its last announcement was at most one beat before the kill; the list reads Redis.
  expect(elapsed).toBeLessThan(ttlMs + 500);
}, 90_000);

it("without Redis an instance lists itself only and says why", async () => {
  await redis.stop();
  const answer = await eventually(
    () => list(servers.get(names.a)!),
    (value) => value.source === "self",
  );
  expect(answer.source).toBe("self");
  expect(answer.degradedReason).toMatch(/Redis did not answer/);
  expect(answer.instances.map((entry) => entry.name)).toEqual([names.a]);
  expect(answer.instances[0]!.self).toBe(true);
});
