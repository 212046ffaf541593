import { randomBytes } from "node:crypto";
import { migrate } from "@warden/db";
import { createConnection } from "mysql2/promise";
import type { BenchEnv } from "../env.js";
import { loginAdmin, type AdminApi } from "../infra/admin-api.js";
import type { CleanupStack } from "../infra/cleanup-stack.js";
import { REDIS_DBS, redisDbUrl } from "../infra/redis-db-url.js";
import { startServerProcess, type ServerProcess } from "../infra/server-process.js";
import { openStores, type BenchStores } from "../infra/stores.js";
import type { LoadgenConfig } from "../load/loadgen-config.js";
import { LoadgenProcess } from "../load/loadgen-process.js";
import { serverInstancesOf, type BenchPlan } from "../plan/bench-plan.js";
import type { PidsByRole } from "../stats/proc-stat.js";
import { createAppSchema } from "../variants/app-schema.js";

/** Everything a run measures against, started and ready. */
export interface BenchEnvironment {
  readonly stores: BenchStores;
  /** The first server instance: the one every single-instance variant talks to. */
  readonly server: ServerProcess;
  /** Every server instance, `server` first (more than one when the plan has a fleet variant). */
  readonly servers: readonly ServerProcess[];
  readonly admin: AdminApi;
  readonly loadgen: LoadgenProcess;
  /** Pids whose CPU each cell reports. */
  readonly pids: PidsByRole;
}

/** The tenant the bench's SDK clients use; its quota is the schema's maximum. */
const TENANT = "bench";
const TENANT_REQUESTS_PER_SECOND = 1_000_000;
/** Longest lease a resource may have (the server's hard cap): the held locks use it. */
const HOLD_LEASE_MS = 60_000;

const RESOURCES = {
  sdk: "bench:sdk",
  sdkFair: "bench:sdk-fair",
  sdkSemaphore: "bench:sdk-semaphore",
  sdkSemaphoreFair: "bench:sdk-semaphore-fair",
  sdkReadLock: "bench:sdk-read-lock",
  sdkMysql: "bench:sdk-mysql",
  fenced: "bench:fenced",
  hold: "bench:hold",
} as const;

/**
 * Starts the stores, migrates, starts the server, registers a tenant and the resources
 * through the admin API, and starts the load generator with every variant of the plan
 * open. Each step registers its undo on `cleanup` before the next one starts.
 */
export async function prepareEnvironment(options: {
  readonly env: BenchEnv;
  readonly plan: BenchPlan;
  readonly cleanup: CleanupStack;
  readonly log: (line: string) => void;
}): Promise<BenchEnvironment> {
  const { plan, cleanup, log } = options;
  log("starting Redis and MariaDB");
  const stores = await openStores(options.env, cleanup);
  log("migrating");
  await migrate(stores.serverDb.url);
  await migrate(stores.coreDb.url);
  const maxKeys = Math.max(...plan.cells.map((cell) => cell.keys), 1);
  const app = await createConnection({ uri: stores.appDb.url });
  try {
    await createAppSchema(app, maxKeys);
  } finally {
    await app.end();
  }

  log("starting the Warden server");
  const adminUser = "bench-admin";
  const adminPassword = randomBytes(18).toString("base64url");
  const server = await startServerProcess({
    databaseUrl: stores.serverDb.url,
    redisUrl: redisDbUrl(stores.redisUrl, REDIS_DBS.server),
    adminUser,
    adminPassword,
  });
  cleanup.push("stop the Warden server", () => server.stop());
  const servers = [server];
  const instances = serverInstancesOf(plan);
  // One after another: each compiles through tsx, which is CPU the others would wait for.
  for (let n = 2; n <= instances; n += 1) {
    log(`starting Warden server instance ${n} of ${instances}`);
    const peer = await startServerProcess({
      databaseUrl: stores.serverDb.url,
      redisUrl: redisDbUrl(stores.redisUrl, REDIS_DBS.server),
      adminUser,
      adminPassword,
      instanceId: `bench-${n}`,
    });
    cleanup.push(`stop Warden server instance ${n}`, () => peer.stop());
    servers.push(peer);
  }
  const admin = await loginAdmin(server.url, adminUser, adminPassword);
  const { apiKey } = await admin.createTenant(TENANT, TENANT_REQUESTS_PER_SECOND);
  for (const name of [RESOURCES.sdk, RESOURCES.sdkMysql, RESOURCES.fenced]) {
    await admin.createResource(TENANT, { name, leaseMs: plan.leaseMs });
  }
  await admin.createResource(TENANT, {
    name: RESOURCES.sdkFair,
    leaseMs: plan.leaseMs,
    fair: true,
  });
  // One permit per key: the same contention per key as the mutex `sdk` locks (decision 0046).
  await admin.createResource(TENANT, {
    name: RESOURCES.sdkSemaphore,
    leaseMs: plan.leaseMs,
    semaphorePermits: 1,
  });
  // The same, fair: every try respects the key's queue, the fair semaphore script's path.
  await admin.createResource(TENANT, {
    name: RESOURCES.sdkSemaphoreFair,
    leaseMs: plan.leaseMs,
    semaphorePermits: 1,
    fair: true,
  });
  // Read locks never exclude each other: the cell measures the read path's cost (decision 0046).
  await admin.createResource(TENANT, {
    name: RESOURCES.sdkReadLock,
    leaseMs: plan.leaseMs,
    rwlock: true,
  });
  await admin.createResource(TENANT, { name: RESOURCES.hold, leaseMs: HOLD_LEASE_MS });

  log("starting the load generator");
  const config: LoadgenConfig = {
    variants: [...new Set(plan.cells.map((cell) => cell.variant))],
    redisUrl: redisDbUrl(stores.redisUrl, REDIS_DBS.inProcess),
    coreDbUrl: stores.coreDb.url,
    appDbUrl: stores.appDb.url,
    serverUrl: server.url,
    serverUrls: servers.map((instance) => instance.url),
    apiKey,
    resources: RESOURCES,
    leaseMs: plan.leaseMs,
    holdLeaseMs: HOLD_LEASE_MS,
  };
  const loadgen = await LoadgenProcess.start(config);
  cleanup.push("stop the load generator", () => loadgen.stop());
  const pids: PidsByRole = {
    loadgen: loadgen.pid,
    // The fleet's CPU: idle instances still follow the fleet bus and the registry.
    server: servers.map((instance) => instance.pid),
    bench: process.pid,
  };
  // Also counted apart: what the other instances cost a cell served by the first one.
  if (servers.length > 1) pids.serverPeers = servers.slice(1).map((instance) => instance.pid);
  if (stores.redisPid !== null) pids.redis = stores.redisPid;
  if (stores.mysqlPid !== null) pids.mysql = stores.mysqlPid;
  return { stores, server, servers, admin, loadgen, pids };
}
