import type { Logger } from "pino";
import type { EventHub } from "../audit/event-hub.js";
import type { LockService } from "../locks/lock-service.js";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import type { WaitQueues } from "../locks/wait-queues.js";
import type { Metrics } from "../metrics/metrics.js";
import type { KindRegistry } from "../registry/kind-guard.js";
import type { LeaseTracker } from "../stats/lease-tracker.js";
import type { StatsCollector } from "../stats/stats-collector.js";

/** Everything the lock use cases may use; each takes only the members it needs. */
export interface LockUseCaseDeps {
  readonly registry: KindRegistry;
  readonly locks: Pick<TieredLocks, "tier" | "release" | "extend" | "inspect" | "inspectDelay">;
  readonly lockService: Pick<LockService, "acquire" | "cancelWait">;
  readonly waiters: Pick<WaitQueues, "cancel">;
  /** Lookups by lockId always name the key too: a lockId of another key (or tenant) is unknown. */
  readonly tracker: Pick<LeaseTracker, "find">;
  readonly hub: Pick<EventHub, "record">;
  readonly metrics: Metrics;
  readonly stats: Pick<StatsCollector, "recordAcquire" | "recordRenewFailure">;
  readonly logger: Logger;
}
