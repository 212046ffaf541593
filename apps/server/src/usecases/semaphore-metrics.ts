import { Counter, Histogram, type Registry } from "prom-client";
import { BoundChildren } from "../metrics/bound-children.js";
import { ACQUIRE_DURATION_BUCKETS_S, type AcquireOutcome } from "./coordination-metrics.js";

/** Outcomes of a semaphore acquire, as the metrics label them. */
export type PermitOutcome = AcquireOutcome;

/**
 * The semaphore's own Prometheus metrics, on the server's registry (docs/decisions/0161).
 * The hot path records through `record*`, which reuse pre-bound label children as the
 * lock's metrics do (bound-children.ts) instead of a label object per call.
 */
export class SemaphoreMetrics {
  readonly acquires: Counter<"resource" | "tier" | "outcome" | "app">;
  readonly acquireDuration: Histogram<"resource" | "tier" | "outcome">;
  readonly releases: Counter<"resource" | "outcome">;
  readonly renewFailures: Counter<"resource">;

  constructor(registry: Registry) {
    this.acquires = new Counter({
      name: "warden_semaphore_acquires_total",
      help: "semaphore.acquire calls by resource, tier, outcome (granted, refused, timeout, unavailable, cancelled, error) and calling application",
      labelNames: ["resource", "tier", "outcome", "app"],
      registers: [registry],
    });
    this.acquireDuration = new Histogram({
      name: "warden_semaphore_acquire_duration_seconds",
      help: "semaphore.acquire latency, waits included, by resource, tier and outcome",
      labelNames: ["resource", "tier", "outcome"],
      buckets: ACQUIRE_DURATION_BUCKETS_S,
      registers: [registry],
    });
    this.releases = new Counter({
      name: "warden_semaphore_releases_total",
      help: "semaphore.release calls by resource and outcome (released, not-holder, error)",
      labelNames: ["resource", "outcome"],
      registers: [registry],
    });
    this.renewFailures = new Counter({
      name: "warden_semaphore_renew_failures_total",
      help: "semaphore.extend calls refused or failed, by resource",
      labelNames: ["resource"],
      registers: [registry],
    });
  }

  private readonly acquireChildren = new BoundChildren(([resource, tier, outcome, app]) => ({
    total: this.acquires.labels({ resource, tier, outcome, app }),
    duration: this.acquireDuration.labels({ resource, tier, outcome }),
  }));
  private readonly releaseChildren = new BoundChildren(([resource, outcome]) =>
    this.releases.labels({ resource, outcome }),
  );

  /** Counts one semaphore.acquire and observes its latency, in seconds. */
  recordAcquire(
    resource: string,
    tier: string,
    outcome: PermitOutcome,
    app: string,
    seconds: number,
  ): void {
    const child = this.acquireChildren.get(resource, tier, outcome, app);
    child.total.inc();
    child.duration.observe(seconds);
  }

  /** Counts one semaphore.release by outcome. */
  recordRelease(resource: string, outcome: "released" | "not-holder" | "error"): void {
    this.releaseChildren.get(resource, outcome).inc();
  }
}
