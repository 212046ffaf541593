// A first run gone wrong says what to do in one line and exits 1, instead of a driver's stack
// trace: a database that does not exist, and one that exists but was never migrated.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  createTestDatabase,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";

const run = promisify(execFile);
const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsx = join(serverDir, "..", "..", "node_modules", ".bin", "tsx");
let redis: StandaloneRedis;
let empty: TestDatabase;

beforeAll(async () => {
  redis = await startRedis();
  empty = await createTestDatabase();
});
afterAll(async () => {
  await redis?.stop();
  await empty?.drop();
});

async function start(databaseUrl: string): Promise<{ code: number; stderr: string }> {
  const failed = await run(tsx, ["src/main.ts"], {
    cwd: serverDir,
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: "0",
      WARDEN_LOG_LEVEL: "fatal",
    },
  }).then(
    () => ({ code: 0, stderr: "" }),
    (error: unknown) => error as { code: number; stderr: string },
  );
  return { code: failed.code, stderr: failed.stderr };
}

it("a missing database: exit 1, one line naming `warden-admin migrate`", async () => {
  const url = new URL(empty.url);
  url.pathname = `/warden_absent_${randomBytes(5).toString("hex")}`;
  const { code, stderr } = await start(url.toString());
  expect(code).toBe(1);
  expect(stderr.trim()).toMatch(
    /^warden-server could not start: Unknown database 'warden_absent_[0-9a-f]+': create and migrate it with `warden-admin migrate`/,
  );
  expect(stderr.trim().split("\n")).toHaveLength(1);
});

it("a database never migrated: exit 1, told to migrate", async () => {
  const { code, stderr } = await start(empty.url);
  expect(code).toBe(1);
  expect(stderr).toContain("the database is not migrated; run `warden-admin migrate`");
  expect(stderr).not.toMatch(/\n\s+at /);
});
