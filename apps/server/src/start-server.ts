import { openTieredLocks, openTieredSemaphores } from "@warden/core";
import { createPrismaClient, isStrayDriverError } from "@warden/db";
import { Counter } from "prom-client";
import { parseWebhooks } from "./alerts/webhook-config.js";
import { EventHub } from "./audit/event-hub.js";
import { serverConfigOf } from "./config.js";
import type { Env } from "./env.js";
import { startHttpServer, type HttpServerHandle } from "./http/server.js";
import { createLogger } from "./log/logger.js";
import { subscriptionPathsOf } from "./instances/connection-counter.js";
import { RedisReleaseBridge } from "./locks/redis-release-bridge.js";
import { redisTopologyOf } from "./locks/redis-topology.js";
import { RedisFleetTransport } from "./live/redis-fleet-transport.js";
import { appRouter } from "./routers/_app.js";
import { MirrorLog } from "./metrics/mirror-log.js";
import { SweepMetrics } from "./metrics/sweep-metrics.js";
import { missingNodeFlags } from "./runtime/node-flags.js";
import { createServices, type ServicesHandle } from "./services.js";
import { openRwLocks } from "./usecases/rw-stores.js";

/** A running server process. */
export interface RunningServer {
  readonly http: HttpServerHandle;
  readonly services: ServicesHandle["services"];
  /** Graceful shutdown: stop accepting, drain calls, flush the audit, close everything. */
  stop(): Promise<void>;
  /**
   * For the process's last-resort handler: true (logged and counted in
   * `warden_db_driver_stray_errors_total`) when `error` is the database driver's own
   * connection error that no query awaited; the process goes on. False for anything else.
   */
  strayDriverError(error: unknown): boolean;
}

/** Opens the tiers, builds the services and starts listening, from a validated env. */
export async function startServer(env: Env): Promise<RunningServer> {
  const logger = createLogger(env.WARDEN_LOG_LEVEL, env.WARDEN_INSTANCE_ID);
  const topology = redisTopologyOf(env);
  const hub = new EventHub();
  const sweeps = new SweepMetrics(logger);
  const mirrorLog = new MirrorLog(logger);
  const locks = await openTieredLocks({
    redis: topology,
    mysqlUrl: env.DATABASE_URL,
    instanceId: env.WARDEN_INSTANCE_ID,
    onEvent: hub.sink,
    probeIntervalMs: env.WARDEN_TIER_PROBE_INTERVAL_MS,
    failuresToDegrade: env.WARDEN_TIER_FAILURES_TO_DEGRADE,
    successesToRecover: env.WARDEN_TIER_SUCCESSES_TO_RECOVER,
    sweepEveryMs: env.WARDEN_MYSQL_SWEEP_EVERY_MS,
    onSweep: sweeps.listener,
    onMirrorBatch: mirrorLog.listener,
  });
  const semaphores = await openTieredSemaphores(locks, {
    redis: topology,
    mysqlUrl: env.DATABASE_URL,
    onEvent: hub.sink,
    sweepEveryMs: env.WARDEN_MYSQL_SWEEP_EVERY_MS,
    onSweep: sweeps.listener,
  });
  const rwLocks = await openRwLocks(locks, {
    redis: topology,
    mysqlUrl: env.DATABASE_URL,
    onEvent: hub.sink,
    sweepEveryMs: env.WARDEN_MYSQL_SWEEP_EVERY_MS,
    onSweep: sweeps.listener,
  });
  const handle = await createServices({
    config: serverConfigOf(env),
    prisma: createPrismaClient(env.DATABASE_URL),
    mysqlUrl: env.DATABASE_URL,
    locks,
    semaphores,
    rwLocks,
    hub,
    logger,
    audit: {
      spoolDir: env.WARDEN_AUDIT_SPOOL_DIR,
      spoolMaxBytes: env.WARDEN_AUDIT_SPOOL_MAX_BYTES,
      flushMs: env.WARDEN_AUDIT_FLUSH_MS,
      batchSize: env.WARDEN_AUDIT_BATCH_SIZE,
      retentionDays: env.WARDEN_AUDIT_RETENTION_DAYS,
    },
    releaseBridge: new RedisReleaseBridge(topology, env.WARDEN_INSTANCE_ID),
    throttleRedis: topology,
    fleetTransport: new RedisFleetTransport(topology),
    alerts: {
      webhooks: parseWebhooks(env.WARDEN_ALERT_WEBHOOKS),
      consoleUrl: env.WARDEN_ALERT_CONSOLE_URL ?? null,
      evaluateEveryMs: env.WARDEN_ALERT_EVALUATE_MS,
    },
    instances: { redis: topology },
    ...(env.WARDEN_ADMIN_USER && env.WARDEN_ADMIN_PASSWORD
      ? {
          bootstrap: {
            admin: { username: env.WARDEN_ADMIN_USER, password: env.WARDEN_ADMIN_PASSWORD },
          },
        }
      : {}),
  });
  sweeps.registerOn(handle.services.metrics.registry);
  const http = await startHttpServer(handle.services, {
    host: env.WARDEN_HOST,
    port: env.WARDEN_PORT,
    maxBodyBytes: env.WARDEN_MAX_BODY_BYTES,
    shutdownGraceMs: env.WARDEN_SHUTDOWN_GRACE_MS,
  });
  handle.services.instances.watchConnections(
    http.server,
    subscriptionPathsOf(appRouter._def.procedures),
  );
  logger.info({ url: http.url, tier: locks.tier }, "warden server listening");
  const missing = missingNodeFlags(process.execArgv, env.NODE_OPTIONS);
  if (missing.length > 0)
    logger.warn(
      { missing },
      "node was started without the server's flags: each lock call costs more CPU; bin/warden-server.js passes them",
    );
  const strayDriverErrors = new Counter({
    name: "warden_db_driver_stray_errors_total",
    help: "Errors of the database driver's connections that no query awaited (a socket closed under an idle or destroyed connection); logged, not fatal",
    registers: [handle.services.metrics.registry],
  });
  return {
    http,
    services: handle.services,
    stop: async () => {
      // Off the instance list first: the fleet sees it leave at once, not after the drain.
      await handle.services.instances.close();
      await http.close();
      await handle.close();
      logger.info("warden server stopped");
    },
    strayDriverError: (error) => {
      if (!isStrayDriverError(error)) return false;
      strayDriverErrors.inc();
      logger.warn(
        { err: error },
        "database driver: a connection failed with no query waiting on it; the pool opens new ones",
      );
      return true;
    },
  };
}
