import type { TieredSemaphores } from "@warden/core";
import type { Logger } from "pino";
import type { EventHub } from "../audit/event-hub.js";
import type { PermitTracker } from "../live/permit-tracker.js";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import type { WaitQueues } from "../locks/wait-queues.js";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import type { Metrics } from "../metrics/metrics.js";
import type { StatsCollector } from "../stats/stats-collector.js";
import type { KindRegistry } from "../registry/kind-guard.js";
import type { SemaphoreMetrics } from "./semaphore-metrics.js";

/**
 * The semaphore operations as the server calls them: the members of core's
 * `TieredSemaphores` (opened by `openTieredSemaphores` next to the tiered locks, whose
 * tier it follows) the semaphore use cases use.
 */
export type TieredSemaphoresPort = Pick<
  TieredSemaphores,
  "tier" | "acquire" | "release" | "extend" | "inspect" | "leaveQueue" | "close"
>;

/** Everything the semaphore use cases may use (docs/decisions/0161). */
export interface SemaphoreUseCaseDeps {
  /** Refuses resources of another kind (registryOfKind(registry, "semaphore")). */
  readonly registry: KindRegistry;
  readonly semaphores: TieredSemaphoresPort;
  readonly locks: Pick<TieredLocks, "tier">;
  /** Wakes waiting acquires when a permit of the key is released, here or on another instance. */
  readonly notifier: Pick<ReleaseNotifier, "released" | "onRelease">;
  readonly hub: Pick<EventHub, "record" | "recordHold" | "hold" | "renewHold">;
  readonly metrics: Pick<Metrics, "apps">;
  readonly semaphoreMetrics: SemaphoreMetrics;
  /** The console's per-resource statistics: every acquire's outcome and latency. */
  readonly stats?: Pick<StatsCollector, "recordAcquire">;
  readonly logger: Logger;
  /**
   * The fleet's permit grants as this instance knows them (docs/decisions/0162): fed with
   * every grant, renewal and release made here; holder lists read their keys from it.
   */
  readonly permits?: PermitTracker;
  /**
   * The lock waiters' queues: a waiting semaphore acquire is listed there (holder.waiters,
   * fleet-wide) and ended by a shutdown's cancelAll.
   */
  readonly waiters?: Pick<WaitQueues, "enqueue" | "placed" | "remove">;
}
