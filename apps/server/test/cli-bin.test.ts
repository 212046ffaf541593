// The deployable as an operator runs it: the build, then the `warden-admin` bin with plain node
// and the `warden-server` bin through its shebang — migrate onto a database that does not exist yet, register a tenant and a
// resource, start the server, see it ready, stop it with SIGTERM.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase, freePort, startRedis, type StandaloneRedis } from "@warden/testkit";
import { createConnection } from "mysql2/promise";
import { afterAll, beforeAll, expect, it } from "vitest";

const run = promisify(execFile);
const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
let redis: StandaloneRedis;
let serverUrl: URL;
let databaseUrl: string;
let spool: string;
const database = `warden_bin_${randomBytes(5).toString("hex")}`;

beforeAll(async () => {
  await run(process.execPath, ["scripts/build.mjs"], { cwd: serverDir });
  redis = await startRedis();
  const probe = await createTestDatabase();
  await probe.drop();
  serverUrl = new URL(probe.url);
  serverUrl.pathname = "";
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  databaseUrl = url.toString();
  spool = await mkdtemp(join(tmpdir(), "warden-bin-"));
}, 120_000);

afterAll(async () => {
  await redis?.stop();
  if (serverUrl) {
    const connection = await createConnection({ uri: serverUrl.toString() });
    await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await connection.end();
  }
  if (spool) await rm(spool, { recursive: true, force: true });
});

function wardenAdmin(...args: string[]) {
  return run(process.execPath, ["bin/warden-admin.js", ...args], {
    cwd: serverDir,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl },
  });
}

it("`warden-admin` migrates a missing database and registers a tenant and a resource; `warden-server` serves it", async () => {
  expect((await wardenAdmin("migrate")).stdout).toContain(`created database ${database}`);
  expect((await wardenAdmin("migrate")).stdout).toContain("database is up to date");
  await wardenAdmin("tenant", "create", "shop");
  const created = await wardenAdmin(
    "resource",
    "create",
    "shop",
    "orders.settle",
    "--fair",
    "true",
  );
  expect(created.stdout).toContain("resource orders.settle created for tenant shop");
  expect((await wardenAdmin("resource", "list")).stdout).toMatch(
    /^orders\.settle\tshop\tlive\t.*fair=true/m,
  );
  const usage = await wardenAdmin("resource", "create", "shop").catch((e: unknown) => e);
  expect(usage).toMatchObject({ code: 2 });

  const port = await freePort();
  // Executed, not passed to node: the shebang's `env -S node <flags>` is what an operator gets.
  const child = spawn(join(serverDir, "bin", "warden-server.js"), [], {
    cwd: serverDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(port),
      WARDEN_LOG_LEVEL: "warn",
      WARDEN_AUDIT_SPOOL_DIR: spool,
      WARDEN_ADMIN_USER: "admin",
      WARDEN_ADMIN_PASSWORD: "a long enough admin password",
    },
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    let ready: Response | null = null;
    for (let i = 0; i < 100 && child.exitCode === null; i += 1) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      if (ready?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ready?.status, stderr).toBe(200);
    expect(await ready!.json()).toEqual({ ready: true, tier: "redis" });
  } finally {
    child.kill("SIGTERM");
  }
  expect(await exited).toBe(0);
  // Logged at warn when the process lacks SERVER_NODE_FLAGS; the shebang passes them.
  expect(stdout + stderr).not.toContain("started without the server's flags");
}, 120_000);
