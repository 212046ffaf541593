import { openTieredLocks } from "@warden/core";
import { createPrismaClient } from "@warden/db";
import { EventHub } from "./audit/event-hub.js";
import { serverConfigOf } from "./config.js";
import type { Env } from "./env.js";
import { startHttpServer, type HttpServerHandle } from "./http/server.js";
import { createLogger } from "./log/logger.js";
import { RedisReleaseBridge } from "./locks/redis-release-bridge.js";
import { redisTopologyOf } from "./locks/redis-topology.js";
import { createServices, type ServicesHandle } from "./services.js";

/** A running server process. */
export interface RunningServer {
  readonly http: HttpServerHandle;
  readonly services: ServicesHandle["services"];
  /** Graceful shutdown: stop accepting, drain calls, flush the audit, close everything. */
  stop(): Promise<void>;
}

/** Opens the tiers, builds the services and starts listening, from a validated env. */
export async function startServer(env: Env): Promise<RunningServer> {
  const logger = createLogger(env.WARDEN_LOG_LEVEL, env.WARDEN_INSTANCE_ID);
  const topology = redisTopologyOf(env);
  const hub = new EventHub();
  const locks = await openTieredLocks({
    redis: topology,
    mysqlUrl: env.DATABASE_URL,
    instanceId: env.WARDEN_INSTANCE_ID,
    onEvent: hub.sink,
    probeIntervalMs: env.WARDEN_TIER_PROBE_INTERVAL_MS,
    failuresToDegrade: env.WARDEN_TIER_FAILURES_TO_DEGRADE,
    successesToRecover: env.WARDEN_TIER_SUCCESSES_TO_RECOVER,
  });
  const handle = await createServices({
    config: serverConfigOf(env),
    prisma: createPrismaClient(env.DATABASE_URL),
    mysqlUrl: env.DATABASE_URL,
    locks,
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
    ...(env.WARDEN_ADMIN_USER && env.WARDEN_ADMIN_PASSWORD
      ? {
          bootstrap: {
            admin: { username: env.WARDEN_ADMIN_USER, password: env.WARDEN_ADMIN_PASSWORD },
          },
        }
      : {}),
  });
  const http = await startHttpServer(handle.services, {
    host: env.WARDEN_HOST,
    port: env.WARDEN_PORT,
    maxBodyBytes: env.WARDEN_MAX_BODY_BYTES,
    shutdownGraceMs: env.WARDEN_SHUTDOWN_GRACE_MS,
  });
  logger.info({ url: http.url, tier: locks.tier }, "warden server listening");
  return {
    http,
    services: handle.services,
    stop: async () => {
      await http.close();
      await handle.close();
      logger.info("warden server stopped");
    },
  };
}
