import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@warden/db";
import { loadEnv, startServer } from "@warden/server";
import { freePort, startMariaDb, startRedis } from "@warden/testkit";
import { adminClient } from "./admin-client.js";
import type { E2eStack } from "./stack.js";
import { ensureBuilt, startWeb } from "./web-server.js";

const OPERATOR = { username: "oncall", password: "correct-horse-battery" };
const TENANT_ID = "e2e";

/**
 * Everything on private loopback ports: Redis and MariaDB from the testkit, migrations,
 * the Warden server in this process (fast tier probes so the e2e sees changes quickly),
 * and `next start` of the built console. Seeds the admin operator, a tenant and its key.
 */
export async function startLocalStack(): Promise<E2eStack> {
  ensureBuilt();
  const cleanups: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse())
      await cleanup().catch((error: unknown) => console.error(error));
  };
  try {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const maria = await startMariaDb();
    cleanups.push(() => maria.stop());
    await migrate(maria.url);

    const spoolDir = await mkdtemp(join(tmpdir(), "warden-e2e-spool-"));
    cleanups.push(() => rm(spoolDir, { recursive: true, force: true }));
    const [apiPort, webPort] = [await freePort(), await freePort()];
    const server = await startServer(
      loadEnv({
        DATABASE_URL: maria.url,
        REDIS_URL: redis.url,
        WARDEN_HOST: "127.0.0.1",
        WARDEN_PORT: String(apiPort),
        WARDEN_INSTANCE_ID: "e2e-1",
        WARDEN_LOG_LEVEL: "warn",
        WARDEN_CONSOLE_ORIGINS: `http://127.0.0.1:${webPort}`,
        // The console proxies logins from loopback: its X-Forwarded-For names the browser.
        WARDEN_TRUSTED_PROXIES: "127.0.0.1,::1",
        WARDEN_AUDIT_SPOOL_DIR: spoolDir,
        WARDEN_TIER_PROBE_INTERVAL_MS: "500",
        WARDEN_TIER_FAILURES_TO_DEGRADE: "2",
        WARDEN_TIER_SUCCESSES_TO_RECOVER: "4",
        WARDEN_SHUTDOWN_GRACE_MS: "2000",
        WARDEN_ADMIN_USER: OPERATOR.username,
        WARDEN_ADMIN_PASSWORD: OPERATOR.password,
      }),
    );
    cleanups.push(() => server.stop());
    const apiUrl = `${server.http.url}/trpc`;

    const admin = await adminClient(apiUrl, OPERATOR.username, OPERATOR.password);
    await admin.tenant.create.mutate({ id: TENANT_ID, name: "E2E tenant" });
    const key = await admin.tenant.createApiKey.mutate({
      tenantId: TENANT_ID,
      name: "e2e lock client",
    });

    const web = await startWeb(webPort, apiUrl);
    cleanups.push(() => web.stop());

    return {
      webUrl: web.url,
      apiUrl,
      operator: OPERATOR,
      tenant: { id: TENANT_ID, apiKey: key.key },
      stopRedis: () => redis.kill9(),
      startRedis: () => redis.restart(),
      stopMariaDb: () => maria.kill9(),
      startMariaDb: () => maria.restart(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
