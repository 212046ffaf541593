// Two instances deployed at once, both with WARDEN_ADMIN_USER set, on an empty database: both
// must come up, and exactly one admin must exist (the loser of the race finds it made).
import { mkdtemp, rm } from "node:fs/promises";
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
import { verifyPassword } from "../src/auth/password.js";
import { loadEnv } from "../src/env.js";
import { startServer, type RunningServer } from "../src/start-server.js";
import { uid } from "./support/harness.js";

let redis: StandaloneRedis;
let db: TestDatabase;
let spool: string;
const servers: RunningServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
  db = await createTestDatabase();
  await migrate(db.url);
  spool = await mkdtemp(join(tmpdir(), "warden-bootstrap-"));
});
afterAll(async () => {
  await Promise.allSettled(servers.map((server) => server.stop()));
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
    WARDEN_ADMIN_USER: "root-admin",
    WARDEN_ADMIN_PASSWORD: "a long enough admin password",
  });
}

it("two instances started at the same moment with WARDEN_ADMIN_USER both come up, with one admin", async () => {
  const envs = await Promise.all([envFor("a"), envFor("b")]);
  const started = await Promise.allSettled(envs.map((env) => startServer(env)));
  for (const result of started) if (result.status === "fulfilled") servers.push(result.value);
  expect(started.map((result) => result.status)).toEqual(["fulfilled", "fulfilled"]);
  for (const server of servers) {
    expect((await fetch(`${server.http.url}/healthz`)).status).toBe(200);
  }
  const admins = await servers[0]!.services.prisma.operator.findMany({
    select: { username: true, role: true, passwordHash: true },
  });
  expect(admins.map(({ username, role }) => ({ username, role }))).toEqual([
    { username: "root-admin", role: "admin" },
  ]);
  expect(await verifyPassword("a long enough admin password", admins[0]!.passwordHash)).toBe(true);
});
