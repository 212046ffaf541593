import type { Logger } from "pino";
import type { EventHub } from "../audit/event-hub.js";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import type { WaitQueues } from "../locks/wait-queues.js";
import type { Metrics } from "../metrics/metrics.js";
import type { StatsCollector } from "../stats/stats-collector.js";
import type { KindRegistry } from "../registry/kind-guard.js";

/**
 * What the semaphore and the read-write lock use cases both use; each kind's deps add its
 * stores, its metrics and its grant tracking.
 */
export interface CoordinationUseCaseDeps {
  /** Refuses resources of another kind (registryOfKind(registry, "semaphore" or "rwlock")). */
  readonly registry: KindRegistry;
  readonly locks: Pick<TieredLocks, "tier">;
  /** Wakes waiting acquires when a grant of the key is released, here or on another instance. */
  readonly notifier: Pick<ReleaseNotifier, "released" | "onRelease">;
  readonly hub: Pick<EventHub, "record" | "recordHold" | "hold" | "renewHold">;
  readonly metrics: Pick<Metrics, "apps">;
  /** The console's per-resource statistics: every acquire's outcome and latency. */
  readonly stats?: Pick<StatsCollector, "recordAcquire">;
  readonly logger: Logger;
  /**
   * The lock waiters' queues: a waiting semaphore, read or write acquire is listed there
   * (holder.waiters, fleet-wide) and ended by a shutdown's cancelAll (docs/decisions/0185).
   */
  readonly waiters?: Pick<WaitQueues, "enqueue" | "placed" | "remove">;
}
