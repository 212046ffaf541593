import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { PrismaClient } from "@warden/db";
import { createPool } from "mysql2/promise";
import type { Logger } from "pino";
import { AlertEvaluator } from "./alerts/alert-evaluator.js";
import { AlertMetrics } from "./alerts/alert-metrics.js";
import { SpoolReports } from "./alerts/spool-reports.js";
import type { WebhookConfig } from "./alerts/webhook-config.js";
import { ApiKeyAuth } from "./auth/api-key-auth.js";
import { SessionAuth } from "./auth/session-auth.js";
import { auditRecord } from "./audit/audit-record.js";
import { AuditSpool } from "./audit/audit-spool.js";
import { ClientHeartbeats } from "./clients/client-heartbeats.js";
import { AuditWriter } from "./audit/audit-writer.js";
import type { EventHub } from "./audit/event-hub.js";
import { pruneAudit } from "./audit/retention.js";
import { BootstrapGate, type BootstrapOptions } from "./bootstrap/bootstrap-gate.js";
import type { RedisTopology, TieredSemaphores } from "@warden/core";
import { limitsOf, type ServerConfig } from "./config.js";
import type { Services } from "./context.js";
import { Inflight } from "./http/inflight.js";
import { InstanceRegistry } from "./instances/instance-registry.js";
import { registerInstancesGauge } from "./instances/instances-metric.js";
import { SERVER_VERSION } from "./instances/server-version.js";
import { FleetBus, type FleetTransport } from "./live/fleet-bus.js";
import { publishLapsed } from "./live/lapsed.js";
import { LiveBus } from "./live/live-bus.js";
import { PermitTracker } from "./live/permit-tracker.js";
import { LivenessMonitor } from "./liveness/liveness-monitor.js";
import { LockService } from "./locks/lock-service.js";
import { ReleaseNotifier, type ReleaseBridge } from "./locks/release-notifier.js";
import type { TieredLocks } from "./locks/tiered-locks-port.js";
import { WaitQueues } from "./locks/wait-queues.js";
import { countLiveHolds, type LiveHoldSources } from "./metrics/live-holds.js";
import { longHoldsSource } from "./metrics/long-holds.js";
import { Metrics } from "./metrics/metrics.js";
import { RateLimiter } from "./quota/rate-limiter.js";
import { RedisBuckets } from "./quota/redis-buckets.js";
import { registryOfKind } from "./registry/kind-guard.js";
import { ResourceRegistry } from "./registry/resource-registry.js";
import { LeaseTracker } from "./stats/lease-tracker.js";
import { StatsCollector } from "./stats/stats-collector.js";
import { RevokeRelay } from "./protocol/revoke-relay.js";
import { createLockUseCases } from "./usecases/index.js";
import { requestRevokeUseCase } from "./usecases/request-revoke.js";
import type { TieredSemaphoresPort } from "./usecases/semaphore-deps.js";
import { SemaphoreMetrics } from "./usecases/semaphore-metrics.js";
import { createSemaphoreUseCases } from "./usecases/semaphore-usecases.js";
import { RwMetrics } from "./usecases/rw-metrics.js";
import type { RwLocksPort } from "./usecases/rw-stores.js";
import { createRwUseCases } from "./usecases/rw-usecases.js";

// How long past its expiry a read-write grant nobody ended is still counted as live.
const RW_LAPSE_GRACE_MS = 5_000;

/** What {@link createServices} needs from the process. */
export interface ServicesOptions {
  readonly config: ServerConfig;
  readonly prisma: PrismaClient;
  /** Warden's database, for the audit writer's raw inserts and the SDK heartbeats. */
  readonly mysqlUrl: string;
  readonly locks: TieredLocks;
  /**
   * The semaphores, opened on the same stores with `openTieredSemaphores(locks, …)`
   * (docs/decisions/0161); closed with the services. Without them semaphore calls are refused.
   * Operators force-release permits through them (docs/decisions/0185).
   */
  readonly semaphores?: TieredSemaphoresPort & Pick<TieredSemaphores, "forceRelease">;
  /**
   * The read-write locks, opened on the same stores with `openRwLocks(locks, …)`
   * (docs/decisions/0166); closed with the services. Without them rwlock calls are refused.
   */
  readonly rwLocks?: RwLocksPort;
  /** The hub whose sink `locks` was opened with. */
  readonly hub: EventHub;
  readonly logger: Logger;
  readonly audit: {
    readonly spoolDir: string;
    readonly spoolMaxBytes: number;
    readonly flushMs?: number;
    readonly batchSize?: number;
    /** How long past its expiry an open hold is closed as lapsed, in ms. @defaultValue 30 000 */
    readonly lapseGraceMs?: number;
    /** How often lapsed holds are looked for, in ms. @defaultValue 5 000 */
    readonly lapseEveryMs?: number;
    readonly retentionDays: number;
    /** How often old events are pruned, in ms. @defaultValue 1 hour */
    readonly retentionEveryMs?: number;
  };
  /** Carries release notifications to other instances (Redis pub/sub in production). */
  readonly releaseBridge?: ReleaseBridge;
  /**
   * Shares lock events, live feed and statistics between instances (Redis pub/sub in
   * production, docs/decisions/0071); without it each instance describes itself only.
   */
  readonly fleetTransport?: FleetTransport;
  readonly bootstrap?: BootstrapOptions;
  /** Credential and registry cache lifetime, in ms. @defaultValue 1000 */
  readonly cacheMs?: number;
  /**
   * The Redis that holds login throttles and tenant quotas for the whole fleet; without
   * it each instance limits on its own (docs/decisions/0101).
   */
  readonly throttleRedis?: RedisTopology;
  /**
   * The Redis every instance announces itself in (docs/decisions/0135); without it
   * `instance.list` shows this instance only. Beat and TTL in ms (defaults 2 000 / 10 000).
   */
  readonly instances?: {
    readonly redis: RedisTopology;
    readonly everyMs?: number;
    readonly ttlMs?: number;
  };
  /**
   * Alert evaluation for the fleet by whichever instance holds its lock, and webhook
   * delivery (docs/decisions/0130); without it this instance never evaluates alerts.
   */
  readonly alerts?: {
    readonly webhooks: readonly WebhookConfig[];
    readonly consoleUrl?: string | null;
    readonly evaluateEveryMs?: number;
  };
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
  // Semaphore permit grants the fleet holds, for holder lists and expiry events (decision 0162).
  const permits = new PermitTracker();
  // Read-write grants the fleet holds, for the live-holds gauge and long holds (decision 0194).
  const rwGrants = new PermitTracker();
  const liveHolds: LiveHoldSources = { leases: tracker, permits, rwGrants };
  const waiters = new WaitQueues();
  const stats = new StatsCollector();
  const live = new LiveBus();
  const notifier = new ReleaseNotifier(options.releaseBridge);
  const registry = new ResourceRegistry(prisma, cacheMs);
  const spool = new AuditSpool(options.audit.spoolDir, options.audit.spoolMaxBytes);
  await spool.open();
  const metrics: Metrics = new Metrics({
    liveHolds: () => countLiveHolds(liveHolds),
    longHolds: longHoldsSource(liveHolds, registry),
    waitersByResource: () => waiters.countsByResource(),
    tier: () => locks.tier,
    epoch: () => locks.snapshot().epoch,
    // Read at scrape time, after `audit` below exists.
    spool: () => ({ ...spool.size, full: audit.spoolFull }),
    auditBuffered: () => audit.buffered,
    mirror: () => locks.mirrorStats,
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
    ...(options.audit.lapseGraceMs === undefined
      ? {}
      : { lapseGraceMs: options.audit.lapseGraceMs }),
    ...(options.audit.lapseEveryMs === undefined
      ? {}
      : { lapseEveryMs: options.audit.lapseEveryMs }),
  });
  // Per process: a restarted instance is a new member whose old seconds age out.
  const processId = `${config.instanceId}:${randomUUID().slice(0, 8)}`;
  const revokes = new RevokeRelay();
  const fleet = options.fleetTransport
    ? new FleetBus({
        revokes,
        transport: options.fleetTransport,
        instanceId: processId,
        live,
        tracker,
        stats,
        logger,
        waiters: () => waiters.countsByResource(),
        waits: waiters,
        permits,
        rwGrants,
      })
    : undefined;
  hub.attach({
    audit,
    tracker,
    stats,
    metrics,
    notifier,
    registry,
    live,
    logger,
    ...(fleet ? { fleet } : {}),
  });
  const bootstrap = new BootstrapGate(prisma, logger);
  await bootstrap.init(options.bootstrap);
  const lockService = new LockService(locks, waiters, notifier);
  const lockUseCases = createLockUseCases({
    // A semaphore resource is refused by the lock calls (INVALID_ARGUMENT on kind).
    registry: registryOfKind(registry, "mutex"),
    locks,
    lockService,
    waiters,
    tracker,
    hub,
    metrics,
    stats,
    logger,
  });
  const requestRevoke = requestRevokeUseCase({
    registry: registryOfKind(registry, "mutex"),
    locks,
    hub,
    logger,
    // Here at once, and to every other instance over the fleet bus (decision 0176).
    publish: (request) => {
      revokes.deliver(request);
      void fleet?.requestRevoke(request);
    },
  });
  const semaphores = options.semaphores;
  const semaphoreUseCases = semaphores
    ? createSemaphoreUseCases({
        registry: registryOfKind(registry, "semaphore"),
        semaphores,
        locks,
        notifier,
        hub,
        metrics,
        semaphoreMetrics: new SemaphoreMetrics(metrics.registry),
        stats,
        logger,
        permits,
        waiters,
        forced: semaphores,
      })
    : undefined;
  const rwLocks = options.rwLocks;
  const rwUseCases = rwLocks
    ? createRwUseCases({
        registry: registryOfKind(registry, "rwlock"),
        rw: rwLocks,
        locks,
        notifier,
        hub,
        metrics,
        rwMetrics: new RwMetrics(metrics.registry),
        stats,
        logger,
        // A grant's end is in its hold row (docs/decisions/0199); a server before that
        // wrote it as an event row.
        releasedElsewhere: async (lockId) =>
          (await prisma.lockHold.findFirst({
            where: { lockId, endType: { in: ["released", "force-released"] } },
            select: { id: true },
          })) !== null ||
          (await prisma.lockEvent.findFirst({
            where: { lockId, type: { in: ["rwlock-release", "rwlock-force-release"] } },
            select: { id: true },
          })) !== null,
        waiters,
        grants: rwGrants,
      })
    : undefined;
  const instances = new InstanceRegistry({
    identity: {
      id: processId,
      name: config.instanceId,
      version: SERVER_VERSION,
      host: hostname(),
      pid: process.pid,
      startedAt: Date.now(),
    },
    redis: options.instances?.redis ?? null,
    tier: () => {
      const { tier, version, epoch, forced, decidedAlone } = locks.snapshot();
      return { tier, version, epoch, forced, decidedAlone };
    },
    logger,
    ...(options.instances?.everyMs === undefined ? {} : { everyMs: options.instances.everyMs }),
    ...(options.instances?.ttlMs === undefined ? {} : { ttlMs: options.instances.ttlMs }),
  });
  registerInstancesGauge(metrics.registry, () => instances.fleetSize);
  // Liveness-bound release (docs/decisions/0150) on the Redis the instances announce in.
  const liveness = options.instances
    ? new LivenessMonitor({
        redis: options.instances.redis,
        instanceId: processId,
        locks,
        hub,
        prisma,
        logger,
        metrics: metrics.registry,
      })
    : undefined;
  const throttles = options.throttleRedis ? new RedisBuckets(options.throttleRedis) : null;
  const limiter = new RateLimiter(throttles);
  const services: Services = {
    config,
    prisma,
    locks,
    lockService,
    lockUseCases,
    requestRevoke,
    revokes,
    ...(semaphoreUseCases ? { semaphoreUseCases } : {}),
    ...(rwUseCases ? { rwUseCases } : {}),
    registry,
    waiters,
    notifier,
    apiKeys: new ApiKeyAuth(prisma, cacheMs, {
      limiter,
      perMinute: () => limitsOf(config).badApiKeysPerMinute,
    }),
    sessions: new SessionAuth(prisma, config.sessionTtlMs, cacheMs),
    heartbeats: new ClientHeartbeats(auditPool),
    limiter,
    hub,
    audit,
    tracker,
    liveHolds,
    stats,
    metrics,
    live,
    logger,
    bootstrap,
    inflight: new Inflight(),
    instances,
    ...(liveness ? { liveness } : {}),
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
  fleet?.start();
  const spoolReports =
    options.alerts && options.throttleRedis ? new SpoolReports(options.throttleRedis) : undefined;
  const alerts = options.alerts
    ? new AlertEvaluator({
        ...options.alerts,
        instanceId: config.instanceId,
        locks,
        prisma,
        holds: liveHolds,
        spool: () => ({ events: spool.size.events, full: audit.spoolFull }),
        ...(spoolReports ? { spoolReports } : {}),
        metrics: new AlertMetrics(metrics.registry),
        logger,
      })
    : undefined;
  alerts?.start();
  instances.start();
  liveness?.start();
  const everySecond = setInterval(() => {
    publishLapsed(live, (resource) => registry.ownerOf(resource), tracker.sweep());
    stats.sampleQueueDepth(waiters.countsByResource());
    // A grant whose end no instance reported lapses at its expiry (the expiry watch audits it).
    rwGrants.sweep(Date.now(), RW_LAPSE_GRACE_MS);
    void semaphoreUseCases?.reportLapsed().catch((error: unknown) => {
      logger.warn({ err: error }, "reporting lapsed permits failed");
    });
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
        // First: the others stop listing this instance at once.
        await instances.close();
        await liveness?.close();
        stopTierWatch();
        await alerts?.close();
        await spoolReports?.close();
        waiters.cancelAll();
        await rwUseCases?.close();
        await rwLocks
          ?.close()
          .catch((error: unknown) =>
            logger.warn({ err: error }, "closing read-write locks failed"),
          );
        await semaphores
          ?.close()
          .catch((error: unknown) => logger.warn({ err: error }, "closing semaphores failed"));
        await locks
          .close()
          .catch((error: unknown) => logger.warn({ err: error }, "closing locks failed"));
        // After the stores: their last events (releases during the drain) are flushed too.
        await audit.close();
        await auditPool.end().catch(() => undefined);
        await notifier.close();
        await throttles?.close();
        await fleet?.close().catch(() => undefined);
        await prisma.$disconnect();
      })()),
  };
}
