// The alerting as deployed: two servers from env (WARDEN_ALERT_*), one evaluator between
// them, a tier alert delivered to a loopback receiver and resolved, and a hand-over when
// the evaluating server stops.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@warden/db";
import {
  createTestDatabase,
  freePort,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadEnv } from "../src/env.js";
import { startServer, type RunningServer } from "../src/start-server.js";
import { uid } from "./support/harness.js";

interface Posted {
  alerts: { id: string; status: string; labels: Record<string, string> }[];
}

let redis: StandaloneRedis;
let db: TestDatabase;
let spool: string;
let receiver: Server;
let receiverUrl: string;
const posts: Posted[] = [];
const servers: RunningServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
  db = await createTestDatabase();
  await migrate(db.url);
  spool = await mkdtemp(join(tmpdir(), "warden-alerts-"));
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      posts.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Posted);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await Promise.allSettled(servers.map((server) => server.stop()));
  await new Promise((resolve) => receiver?.close(resolve));
  await redis?.stop();
  await db?.drop();
  if (spool) await rm(spool, { recursive: true, force: true });
});

async function envFor(instance: string) {
  return loadEnv({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    WARDEN_HOST: "127.0.0.1",
    WARDEN_PORT: String(await freePort()),
    WARDEN_LOG_LEVEL: "fatal",
    WARDEN_AUDIT_SPOOL_DIR: join(spool, instance),
    WARDEN_INSTANCE_ID: `${instance}-${uid()}`,
    WARDEN_SHUTDOWN_GRACE_MS: "500",
    WARDEN_TIER_PROBE_INTERVAL_MS: "200",
    WARDEN_TIER_SUCCESSES_TO_RECOVER: "1",
    WARDEN_ALERT_WEBHOOKS: `json=${receiverUrl}`,
    WARDEN_ALERT_EVALUATE_MS: "1000",
    WARDEN_ALERT_CONSOLE_URL: "https://console.example",
  });
}

async function eventually<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within ${ms} ms; last: ${JSON.stringify(last)}`);
}

async function evaluating(server: RunningServer): Promise<boolean> {
  const metric = server.services.metrics.registry.getSingleMetric("warden_alert_evaluator");
  return (await metric!.get()).values[0]?.value === 1;
}

function tierPosts(status: string) {
  return posts.flatMap((post) =>
    post.alerts.filter((alert) => alert.id === "tier" && alert.status === status),
  );
}

it("two servers: one evaluates; a degraded tier is sent once and resolved; a stop hands over", async () => {
  servers.push(
    ...(await Promise.all([envFor("a"), envFor("b")].map(async (env) => startServer(await env)))),
  );
  const roles = await eventually(
    () => Promise.all(servers.map(evaluating)),
    (states) => states.filter(Boolean).length === 1,
  );
  const leader = servers[roles.indexOf(true)]!;
  const other = servers[roles.indexOf(false)]!;

  await leader.services.locks.override("mysql", "test", "alert drill");
  const [firing] = await eventually(
    () => tierPosts("firing"),
    (found) => found.length === 1,
  );
  expect(firing?.labels).toMatchObject({ alertname: "WardenDegradedTier", tier: "mysql" });
  // Stored for every instance to read (written right after the notification starts).
  const stored = await eventually(
    () => other.services.prisma.alertState.findUnique({ where: { id: "tier" } }),
    (row) => row !== null,
  );
  expect(stored).toMatchObject({ status: "firing", severity: "warning", tenantId: null });

  await leader.services.locks.override(null, "test", "drill over");
  await eventually(
    () => tierPosts("resolved"),
    (found) => found.length === 1,
  );
  expect(tierPosts("firing")).toHaveLength(1);

  // A clean stop releases the evaluator lock: the other server takes over at its next tick.
  await leader.stop();
  servers.splice(servers.indexOf(leader), 1);
  await eventually(() => evaluating(other), Boolean, 5_000);
});
