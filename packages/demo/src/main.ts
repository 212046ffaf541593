// `npm start`: Redis and MariaDB (private ones unless REDIS_URL / DATABASE_URL are set),
// migrations, the Warden server, the console and a demo workload. Ctrl-C stops all of it.
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConsoleProcess } from "./console.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const { loadDemoEnv, useTempDir } = await import("./env.js");
const env = loadDemoEnv();
// The testkit puts server data under the temp dir: keep it in the git-ignored .warden/.
mkdirSync(join(root, ".warden", "run"), { recursive: true });
useTempDir(join(root, ".warden", "run"));

const { migrate } = await import("@warden/db");
const { loadEnv, startServer } = await import("@warden/server");
const { stopAllStarted } = await import("@warden/testkit");
const { startBackends } = await import("./backends.js");
const { adminClient } = await import("./admin-client.js");
const { seedDemo } = await import("./seed.js");
const { startConsole } = await import("./console.js");
const { startWorkload } = await import("./workload.js");

const admin = { username: env.adminUser, password: env.adminPassword };
/** Longest a Ctrl-C may take before whatever is left is killed. */
const STOP_DEADLINE_MS = 8_000;
const stops: Array<() => Promise<void>> = [];
let stopping = false;

let web: ConsoleProcess | null = null;

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log("\n[warden] stopping…");
  // The terminal's Ctrl-C also reaches Redis and MariaDB (same process group), so the server's
  // drain and audit flush can only fail, slowly, against them: never wait longer than this.
  setTimeout(() => {
    console.error(
      `[warden] still stopping after ${STOP_DEADLINE_MS / 1000} s; killing what is left`,
    );
    web?.kill();
    void stopAllStarted()
      .catch(() => undefined)
      .finally(() => process.exit(code));
  }, STOP_DEADLINE_MS).unref();
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  await stopAllStarted();
  process.exit(code);
}
// Run as `node --import tsx` (one process), not through the tsx CLI: that wrapper relays the
// terminal's SIGINT and SIGKILLs the child if it does not acknowledge within 30 ms, which a
// busy machine misses — and a SIGKILLed demo leaves its MariaDB running. `on`, not `once`: a
// second Ctrl-C must not kill this process halfway through stopping its children.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void shutdown(0));

try {
  const backends = await startBackends(env);
  stops.push(() => backends.stop());
  await migrate(backends.databaseUrl);
  const apiPort = await portOrFree(env.apiPort);
  const webPort = await portOrFree(env.webPort);
  const server = await startServer(
    loadEnv({
      ...env.raw,
      DATABASE_URL: backends.databaseUrl,
      REDIS_URL: backends.redisUrl,
      WARDEN_PORT: String(apiPort),
      WARDEN_CONSOLE_ORIGINS: `http://127.0.0.1:${webPort},http://localhost:${webPort}`,
      // The console proxies logins from loopback: its X-Forwarded-For names the browser.
      WARDEN_TRUSTED_PROXIES: "127.0.0.1,::1",
      WARDEN_AUDIT_SPOOL_DIR: join(root, ".warden", "audit-spool"),
      WARDEN_LOG_LEVEL: env.logLevel,
      WARDEN_ADMIN_USER: admin.username,
      WARDEN_ADMIN_PASSWORD: admin.password,
      // Ctrl-C should not wait the production default of 10 s for calls in progress.
      WARDEN_SHUTDOWN_GRACE_MS: env.raw.WARDEN_SHUTDOWN_GRACE_MS ?? "2000",
    }),
  );
  stops.push(() => server.stop());
  const apiUrl = `${server.http.url}/trpc`;
  const { apiKey } = await seedDemo(await adminClient(apiUrl, admin.username, admin.password));
  web = await startConsole(root, webPort, apiUrl, env.raw);
  const started = web;
  stops.push(() => started.stop());
  const workload = startWorkload(server.http.url, apiKey);
  stops.push(() => workload.stop());
  // The demo tenant's key, for taking a lock from your own project (README, Quick start).
  const keyFile = join(root, ".warden", "demo-api-key");
  writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });

  console.log(
    [
      "",
      "Warden is running.",
      ...backends.started.map((line) => `  started ${line}`),
      `  server   ${server.http.url}  (/metrics, /healthz, /readyz)`,
      `  console  ${started.url}`,
      `  login    ${admin.username} / ${admin.password}`,
      `  demo     tenant "demo" with resources order.settle, inventory.reserve, report.nightly`,
      `           and three SDK clients locking them`,
      `  api key  ${apiKey}  (tenant "demo"; also in ${keyFile})`,
      "Press Ctrl-C to stop everything.",
      "",
    ].join("\n"),
  );
} catch (error) {
  console.error(
    `[warden] could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  await shutdown(1);
}

/** `preferred` when it is free on loopback, else any free port. */
function portOrFree(preferred: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | null>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(null));
      probe.listen(port, "127.0.0.1", () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === "object" && address ? address.port : null));
      });
    });
  return tryListen(preferred).then(async (port) => port ?? (await tryListen(0)) ?? preferred);
}
