import type { PrismaClient } from "@warden/db";
import type { Logger } from "pino";
import type { ApiKeyAuth } from "./auth/api-key-auth.js";
import type { SessionAuth } from "./auth/session-auth.js";
import type { AuditWriter } from "./audit/audit-writer.js";
import type { EventHub } from "./audit/event-hub.js";
import type { BootstrapGate } from "./bootstrap/bootstrap-gate.js";
import type { ServerConfig } from "./config.js";
import type { Inflight } from "./http/inflight.js";
import type { LiveBus } from "./live/live-bus.js";
import type { LockService } from "./locks/lock-service.js";
import type { TieredLocks } from "./locks/tiered-locks-port.js";
import type { WaitQueues } from "./locks/wait-queues.js";
import type { Metrics } from "./metrics/metrics.js";
import type { RateLimiter } from "./quota/rate-limiter.js";
import type { ResourceRegistry } from "./registry/resource-registry.js";
import type { LeaseTracker } from "./stats/lease-tracker.js";
import type { StatsCollector } from "./stats/stats-collector.js";

/** Everything a procedure may use; built once per process by createServices(). */
export interface Services {
  readonly config: ServerConfig;
  readonly prisma: PrismaClient;
  readonly locks: TieredLocks;
  readonly lockService: LockService;
  readonly registry: ResourceRegistry;
  readonly waiters: WaitQueues;
  readonly apiKeys: ApiKeyAuth;
  readonly sessions: SessionAuth;
  readonly limiter: RateLimiter;
  readonly hub: EventHub;
  readonly audit: AuditWriter;
  readonly tracker: LeaseTracker;
  readonly stats: StatsCollector;
  readonly metrics: Metrics;
  readonly live: LiveBus;
  readonly logger: Logger;
  readonly bootstrap: BootstrapGate;
  readonly inflight: Inflight;
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
