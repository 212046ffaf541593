import type { PrismaClient } from "@warden/db";
import type { Logger } from "pino";
import type { ApiKeyAuth } from "./auth/api-key-auth.js";
import type { SessionAuth } from "./auth/session-auth.js";
import type { AuditWriter } from "./audit/audit-writer.js";
import type { ClientHeartbeats } from "./clients/client-heartbeats.js";
import type { EventHub } from "./audit/event-hub.js";
import type { BootstrapGate } from "./bootstrap/bootstrap-gate.js";
import type { ServerConfig } from "./config.js";
import type { Inflight } from "./http/inflight.js";
import type { InstanceRegistry } from "./instances/instance-registry.js";
import type { LiveBus } from "./live/live-bus.js";
import type { LivenessMonitor } from "./liveness/liveness-monitor.js";
import type { LockService } from "./locks/lock-service.js";
import type { ReleaseNotifier } from "./locks/release-notifier.js";
import type { TieredLocks } from "./locks/tiered-locks-port.js";
import type { WaitQueues } from "./locks/wait-queues.js";
import type { Metrics } from "./metrics/metrics.js";
import type { RevokeRelay } from "./protocol/revoke-relay.js";
import type { RateLimiter } from "./quota/rate-limiter.js";
import type { ResourceRegistry } from "./registry/resource-registry.js";
import type { LiveHoldSources } from "./metrics/live-holds.js";
import type { LeaseTracker } from "./stats/lease-tracker.js";
import type { StatsCollector } from "./stats/stats-collector.js";
import type { LockUseCases } from "./usecases/index.js";
import type { RequestRevoke } from "./usecases/request-revoke.js";
import type { SemaphoreUseCases } from "./usecases/semaphore-usecases.js";
import type { RwUseCases } from "./usecases/rw-usecases.js";

/** Everything a procedure may use; built once per process by createServices(). */
export interface Services {
  readonly config: ServerConfig;
  readonly prisma: PrismaClient;
  readonly locks: TieredLocks;
  readonly lockService: LockService;
  /** The lock operations every transport calls (tRPC, the batched lock protocol). */
  readonly lockUseCases: LockUseCases;
  /** Asks a lease's holder to release it (docs/decisions/0176-cooperative-revocation.md). */
  readonly requestRevoke: RequestRevoke;
  /** This instance's lock connections by tenant and clientId, for revoke requests. */
  readonly revokes: RevokeRelay;
  /** The semaphore operations (docs/decisions/0161); absent when no semaphores were opened. */
  readonly semaphoreUseCases?: SemaphoreUseCases;
  /** The read-write lock operations (docs/decisions/0166); absent when none were opened. */
  readonly rwUseCases?: RwUseCases;
  readonly registry: ResourceRegistry;
  readonly waiters: WaitQueues;
  /** "This key was freed" on this instance or another (waiters, SDK short-circuit watches). */
  readonly notifier: ReleaseNotifier;
  readonly apiKeys: ApiKeyAuth;
  readonly sessions: SessionAuth;
  /** SDK instances' heartbeats (`client_instance`), one statement each. */
  readonly heartbeats: ClientHeartbeats;
  readonly limiter: RateLimiter;
  readonly hub: EventHub;
  readonly audit: AuditWriter;
  readonly tracker: LeaseTracker;
  /**
   * Every live hold this instance knows, of every kind: mutex leases, semaphore permit
   * grants and read-write grants (docs/decisions/0194).
   */
  readonly liveHolds: LiveHoldSources;
  readonly stats: StatsCollector;
  readonly metrics: Metrics;
  readonly live: LiveBus;
  readonly logger: Logger;
  readonly bootstrap: BootstrapGate;
  readonly inflight: Inflight;
  /** The fleet's server instances (docs/decisions/0135). */
  readonly instances: InstanceRegistry;
  /** SDK lock connections across the fleet, for liveness-bound release (decision 0150). */
  readonly liveness?: LivenessMonitor;
}

/** What a call brings with it, whatever the transport. */
export interface RequestMeta {
  readonly transport: "http" | "ws" | "caller";
  readonly ip: string | null;
  /** The browser's Origin header (HTTP request or WebSocket upgrade). */
  readonly origin: string | null;
  readonly host: string | null;
  readonly userAgent: string | null;
  /** Tenant API key (Authorization: Bearer, or WebSocket connectionParams.apiKey). */
  readonly apiKey: string | null;
  /** Operator session token from the cookie. */
  readonly sessionToken: string | null;
  /** The SDK instance (x-warden-client-id header, or connectionParams.clientId). */
  readonly clientId: string | null;
  /** Aborted when the request or connection goes away. */
  readonly signal: AbortSignal;
  /** Adds a Set-Cookie header to the response; null where there is none (WebSocket). */
  readonly setCookie: ((cookie: string) => void) | null;
}

/** The tRPC context. */
export interface Context {
  readonly services: Services;
  readonly request: RequestMeta;
}

/**
 * Builds a context without any transport: what the HTTP and WebSocket adapters call
 * after reading their request, and what tests call through `createCaller`.
 */
export function createContextInner(
  services: Services,
  request: Partial<RequestMeta> = {},
): Context {
  return {
    services,
    request: {
      transport: "caller",
      ip: null,
      origin: null,
      host: null,
      userAgent: null,
      apiKey: null,
      sessionToken: null,
      clientId: null,
      signal: new AbortController().signal,
      setCookie: null,
      ...request,
    },
  };
}
