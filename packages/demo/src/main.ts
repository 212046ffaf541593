// `npm start`: Redis and MariaDB (private ones unless REDIS_URL / DATABASE_URL are set),
// migrations, the Warden server, the console and a demo workload. Ctrl-C stops all of it.
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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
const stops: Array<() => Promise<void>> = [];
let stopping = false;

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log("\n[warden] stopping…");
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  await stopAllStarted();
  process.exit(code);
}
// `on`, not `once`: tsx forwards the terminal's SIGINT, so it can arrive twice, and a second one
// without a listener would kill this process halfway through stopping its children.
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
      WARDEN_AUDIT_SPOOL_DIR: join(root, ".warden", "audit-spool"),
      WARDEN_LOG_LEVEL: env.logLevel,
      WARDEN_ADMIN_USER: admin.username,
      WARDEN_ADMIN_PASSWORD: admin.password,
    }),
  );
  stops.push(() => server.stop());
  const apiUrl = `${server.http.url}/trpc`;
  const { apiKey } = await seedDemo(await adminClient(apiUrl, admin.username, admin.password));
  const web = await startConsole(root, webPort, apiUrl, env.raw);
  stops.push(() => web.stop());
  const workload = startWorkload(server.http.url, apiKey);
  stops.push(() => workload.stop());

  console.log(
    [
      "",
      "Warden is running.",
      ...backends.started.map((line) => `  started ${line}`),
      `  server   ${server.http.url}  (/metrics, /healthz, /readyz)`,
      `  console  ${web.url}`,
      `  login    ${admin.username} / ${admin.password}`,
      `  demo     tenant "demo" with resources order.settle, inventory.reserve, report.nightly`,
      `           and three SDK clients locking them; API key ${apiKey.slice(0, 12)}…`,
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
