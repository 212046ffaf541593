import { Counter, Histogram, type Registry } from "prom-client";
import { BoundChildren } from "../metrics/bound-children.js";
import { ACQUIRE_DURATION_BUCKETS_S, type AcquireOutcome } from "./coordination-metrics.js";

/** Outcomes of a read-write acquire, as the metrics label them. */
export type RwOutcome = AcquireOutcome;

/**
 * The read-write lock's own Prometheus metrics, on the server's registry (docs/decisions/0166).
 * The hot path records through `record*`, which reuse pre-bound label children as the
 * lock's metrics do (bound-children.ts) instead of a label object per call.
 */
export class RwMetrics {
  readonly acquires: Counter<"resource" | "mode" | "tier" | "outcome" | "app">;
  readonly acquireDuration: Histogram<"resource" | "mode" | "tier" | "outcome">;
  readonly releases: Counter<"resource" | "mode" | "outcome">;
  readonly renewFailures: Counter<"resource">;
  readonly expired: Counter<"resource" | "mode">;

  constructor(registry: Registry) {
    this.acquires = new Counter({
      name: "warden_rwlock_acquires_total",
      help: "rwlock.acquireRead/acquireWrite calls by resource, mode (read, write), tier, outcome (granted, refused, timeout, unavailable, cancelled, error) and calling application",
      labelNames: ["resource", "mode", "tier", "outcome", "app"],
      registers: [registry],
    });
    this.acquireDuration = new Histogram({
      name: "warden_rwlock_acquire_duration_seconds",
      help: "rwlock acquire latency, waits included, by resource, mode, tier and outcome",
      labelNames: ["resource", "mode", "tier", "outcome"],
      buckets: ACQUIRE_DURATION_BUCKETS_S,
      registers: [registry],
    });
    this.releases = new Counter({
      name: "warden_rwlock_releases_total",
      help: "rwlock releases by resource, mode and outcome (released, not-holder, error; mode unknown when refused; force-released by an operator)",
      labelNames: ["resource", "mode", "outcome"],
      registers: [registry],
    });
    this.renewFailures = new Counter({
      name: "warden_rwlock_renew_failures_total",
      help: "rwlock.extend calls refused or failed, by resource",
      labelNames: ["resource"],
      registers: [registry],
    });
    this.expired = new Counter({
      name: "warden_rwlock_expired_total",
      help: "read-write grants this instance made that ended at their lease without a release, by resource and mode",
      labelNames: ["resource", "mode"],
      registers: [registry],
    });
  }

  private readonly acquireChildren = new BoundChildren(([resource, mode, tier, outcome, app]) => ({
    total: this.acquires.labels({ resource, mode, tier, outcome, app }),
    duration: this.acquireDuration.labels({ resource, mode, tier, outcome }),
  }));
  private readonly releaseChildren = new BoundChildren(([resource, mode, outcome]) =>
    this.releases.labels({ resource, mode, outcome }),
  );

  /** Counts one read or write acquire and observes its latency, in seconds. */
  recordAcquire(
    resource: string,
    mode: string,
    tier: string,
    outcome: RwOutcome,
    app: string,
    seconds: number,
  ): void {
    const child = this.acquireChildren.get(resource, mode, tier, outcome, app);
    child.total.inc();
    child.duration.observe(seconds);
  }

  /** Counts one release by mode ("unknown" when refused) and outcome. */
  recordRelease(resource: string, mode: string, outcome: string): void {
    this.releaseChildren.get(resource, mode, outcome).inc();
  }
}
