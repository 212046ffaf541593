import type { PrismaClient } from "@warden/db";
import { createPool } from "mysql2/promise";
import type { Logger } from "pino";
import { ApiKeyAuth } from "./auth/api-key-auth.js";
import { SessionAuth } from "./auth/session-auth.js";
import { auditRecord } from "./audit/audit-record.js";
import { AuditSpool } from "./audit/audit-spool.js";
import { AuditWriter } from "./audit/audit-writer.js";
import type { EventHub } from "./audit/event-hub.js";
import { pruneAudit } from "./audit/retention.js";
import { BootstrapGate, type BootstrapOptions } from "./bootstrap/bootstrap-gate.js";
import type { ServerConfig } from "./config.js";
import type { Services } from "./context.js";
import { Inflight } from "./http/inflight.js";
import { LiveBus } from "./live/live-bus.js";
import { LockService } from "./locks/lock-service.js";
import { ReleaseNotifier, type ReleaseBridge } from "./locks/release-notifier.js";
import type { TieredLocks } from "./locks/tiered-locks-port.js";
import { WaitQueues } from "./locks/wait-queues.js";
import { Metrics } from "./metrics/metrics.js";
import { RateLimiter } from "./quota/rate-limiter.js";
import { ResourceRegistry } from "./registry/resource-registry.js";
import { LeaseTracker } from "./stats/lease-tracker.js";
import { StatsCollector } from "./stats/stats-collector.js";

/** What {@link createServices} needs from the process. */
export interface ServicesOptions {
  readonly config: ServerConfig;
  readonly prisma: PrismaClient;
  /** Warden's database, for the audit writer's raw inserts. */
  readonly mysqlUrl: string;
  readonly locks: TieredLocks;
  /** The hub whose sink `locks` was opened with. */
  readonly hub: EventHub;
  readonly logger: Logger;
  readonly audit: {
    readonly spoolDir: string;
    readonly spoolMaxBytes: number;
    readonly flushMs?: number;
    readonly batchSize?: number;
    readonly retentionDays: number;
    /** How often old events are pruned, in ms. @defaultValue 1 hour */
    readonly retentionEveryMs?: number;
  };
  /** Carries release notifications to other instances (Redis pub/sub in production). */
  readonly releaseBridge?: ReleaseBridge;
  readonly bootstrap?: BootstrapOptions;
  /** Credential and registry cache lifetime, in ms. @defaultValue 1000 */
  readonly cacheMs?: number;
}

/** The services and how to stop their timers and flush the audit. */
export interface ServicesHandle {
  readonly services: Services;
  /** Flushes the audit and closes the locks, the notifier and Prisma. Idempotent. */
  close(): Promise<void>;
}

/** Builds every service, wires store events into them, and starts their timers. */
export async function createServices(options: ServicesOptions): Promise<ServicesHandle> {
  const { config, prisma, locks, hub, logger } = options;
  const cacheMs = options.cacheMs ?? 1_000;
  const tracker = new LeaseTracker();
  const waiters = new WaitQueues();
  const stats = new StatsCollector();
  const live = new LiveBus();
  const notifier = new ReleaseNotifier(options.releaseBridge);
  const registry = new ResourceRegistry(prisma, cacheMs);
  const spool = new AuditSpool(options.audit.spoolDir, options.audit.spoolMaxBytes);
  await spool.open();
  const metrics: Metrics = new Metrics({
    liveLocksByResource: () => tracker.countsByResource(),
    waitersByResource: () => waiters.countsByResource(),
    tier: () => locks.tier,
    epoch: () => locks.snapshot().epoch,
    // Read at scrape time, after `audit` below exists.
    spool: () => ({ ...spool.size, full: audit.spoolFull }),
    auditBuffered: () => audit.buffered,
  });
  // UTC like Prisma, so DATETIME columns mean the same to both writers.
  const auditPool = createPool({
    uri: options.mysqlUrl,
    connectionLimit: 2,
    timezone: "Z",
    connectTimeout: 2_000,
  });
  const audit: AuditWriter = new AuditWriter({
    pool: auditPool,
    spool,
    metrics,
    logger,
    ...(options.audit.flushMs === undefined ? {} : { flushMs: options.audit.flushMs }),
    ...(options.audit.batchSize === undefined ? {} : { batchSize: options.audit.batchSize }),
  });
  hub.attach({ audit, tracker, stats, metrics, notifier, registry, live, logger });
  const bootstrap = new BootstrapGate(prisma, logger);
  await bootstrap.init(options.bootstrap);
  const services: Services = {
    config,
    prisma,
    locks,
    lockService: new LockService(locks, waiters, notifier, metrics, stats, logger),
    registry,
    waiters,
    apiKeys: new ApiKeyAuth(prisma, cacheMs),
    sessions: new SessionAuth(prisma, config.sessionTtlMs, cacheMs),
    limiter: new RateLimiter(),
    hub,
    audit,
    tracker,
    stats,
    metrics,
    live,
    logger,
    bootstrap,
    inflight: new Inflight(),
  };
  const stopTierWatch = locks.onTierChange((snapshot) => {
    logger.warn(
      {
        tier: snapshot.tier,
        epoch: snapshot.epoch,
        reason: snapshot.reason,
        actor: snapshot.actor,
      },
      "tier changed",
    );
    live.publish({ kind: "tier", snapshot });
    hub.record(
      auditRecord({
        // One row per change however many instances see it: the id is the version's.
        id: `tier-${snapshot.version}`,
        type: "tier",
        resource: "*",
        tier: snapshot.tier,
        actor: snapshot.actor,
        reason:
          `${snapshot.forced ? "forced: " : ""}${snapshot.reason} (epoch ${snapshot.epoch})`.slice(
            0,
            500,
          ),
        at: snapshot.since,
      }),
    );
  });
  audit.start();
  const everySecond = setInterval(() => {
    tracker.sweep();
    stats.sampleQueueDepth(waiters.countsByResource());
  }, 1_000);
  everySecond.unref();
  const retention = setInterval(() => {
    pruneAudit(prisma, options.audit.retentionDays)
      .then((deleted) => deleted > 0 && logger.info({ deleted }, "audit retention"))
      .then(() => services.sessions.prune())
      .catch((error: unknown) => logger.warn({ err: error }, "audit retention failed"));
  }, options.audit.retentionEveryMs ?? 3_600_000);
  retention.unref();
  let closed: Promise<void> | undefined;
  return {
    services,
    close: () =>
      (closed ??= (async () => {
        clearInterval(everySecond);
        clearInterval(retention);
        stopTierWatch();
        waiters.cancelAll();
        await locks
          .close()
          .catch((error: unknown) => logger.warn({ err: error }, "closing locks failed"));
        // After the stores: their last events (releases during the drain) are flushed too.
        await audit.close();
        await auditPool.end().catch(() => undefined);
        await notifier.close();
        await prisma.$disconnect();
      })()),
  };
}
