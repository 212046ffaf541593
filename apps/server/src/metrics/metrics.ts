import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** What the metrics read from live state at scrape time. */
export interface MetricSources {
  liveLocksByResource(): Map<string, number>;
  waitersByResource(): Map<string, number>;
  tier(): string;
  epoch(): number;
  spool(): { bytes: number; events: number; full: boolean };
  auditBuffered(): number;
}

const TIERS = ["redis", "mysql", "local"] as const;

// Lock latencies are sub-millisecond on Redis and tens of ms on MySQL; waits go to 300 s.
const ACQUIRE_BUCKETS_S = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];
const HOLD_BUCKETS_S = [
  0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

/**
 * The server's Prometheus metrics on their own registry (so several servers can live in
 * one test process). Gauges of live state are computed at scrape time from `sources`.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly acquireTotal: Counter<"resource" | "tier" | "outcome">;
  readonly acquireDuration: Histogram<"resource" | "tier" | "outcome">;
  readonly holdDuration: Histogram<"resource">;
  readonly renewFailures: Counter<"resource">;
  readonly releases: Counter<"resource" | "outcome">;
  readonly forceReleases: Counter<"resource">;
  readonly staleFenceRejections: Counter<"resource">;
  readonly quotaRefusals: Counter<"tenant">;
  readonly loginRefusals: Counter<"reason">;
  readonly auditWritten: Counter;
  readonly auditDropped: Counter;
  readonly auditSpooled: Counter;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: "warden_" });
    this.acquireTotal = new Counter({
      name: "warden_acquire_total",
      help: "lock.acquire calls by resource, tier and outcome (granted, refused, timeout, unavailable, cancelled, error)",
      labelNames: ["resource", "tier", "outcome"],
      registers,
    });
    this.acquireDuration = new Histogram({
      name: "warden_acquire_duration_seconds",
      help: "lock.acquire latency including any server-side wait, in seconds",
      labelNames: ["resource", "tier", "outcome"],
      buckets: ACQUIRE_BUCKETS_S,
      registers,
    });
    this.holdDuration = new Histogram({
      name: "warden_hold_duration_seconds",
      help: "Time from grant to release of locks granted and released through this instance, in seconds",
      labelNames: ["resource"],
      buckets: HOLD_BUCKETS_S,
      registers,
    });
    this.renewFailures = new Counter({
      name: "warden_renew_failures_total",
      help: "lock.extend calls refused because the lease was gone or held by another grant",
      labelNames: ["resource"],
      registers,
    });
    this.releases = new Counter({
      name: "warden_release_total",
      help: "lock.release calls by resource and outcome (released, reentry-left, not-holder, error)",
      labelNames: ["resource", "outcome"],
      registers,
    });
    this.forceReleases = new Counter({
      name: "warden_force_releases_total",
      help: "Leases removed by an operator",
      labelNames: ["resource"],
      registers,
    });
    this.staleFenceRejections = new Counter({
      name: "warden_stale_fence_rejections_total",
      help: "Writes refused by an SDK fence guard because a newer holder's fence was recorded",
      labelNames: ["resource"],
      registers,
    });
    this.quotaRefusals = new Counter({
      name: "warden_quota_refusals_total",
      help: "Calls refused because the tenant was over its request-rate quota",
      labelNames: ["tenant"],
      registers,
    });
    this.loginRefusals = new Counter({
      name: "warden_login_refusals_total",
      help: "Console logins refused, by reason (throttled, bad-credentials)",
      labelNames: ["reason"],
      registers,
    });
    this.auditWritten = new Counter({
      name: "warden_audit_written_total",
      help: "Audit events inserted into MySQL (replays of the spool included)",
      registers,
    });
    this.auditSpooled = new Counter({
      name: "warden_audit_spooled_total",
      help: "Audit events written to the local spool because MySQL could not take them",
      registers,
    });
    this.auditDropped = new Counter({
      name: "warden_audit_dropped_total",
      help: "Audit events lost because the spool was full (alert on any increase)",
      registers,
    });
    new Gauge({
      name: "warden_live_locks",
      help: "Leases granted through this instance and not yet released or expired",
      labelNames: ["resource"],
      registers,
      collect() {
        this.reset();
        for (const [resource, count] of sources.liveLocksByResource())
          this.set({ resource }, count);
      },
    });
    new Gauge({
      name: "warden_waiters",
      help: "Blocking acquires waiting on this instance",
      labelNames: ["resource"],
      registers,
      collect() {
        this.reset();
        for (const [resource, count] of sources.waitersByResource()) this.set({ resource }, count);
      },
    });
    new Gauge({
      name: "warden_tier",
      help: "1 for the tier this instance grants on, 0 for the others",
      labelNames: ["tier"],
      registers,
      collect() {
        const current = sources.tier();
        for (const tier of TIERS) this.set({ tier }, tier === current ? 1 : 0);
      },
    });
    new Gauge({
      name: "warden_fence_epoch",
      help: "Fencing epoch in force",
      registers,
      collect() {
        this.set(sources.epoch());
      },
    });
    new Gauge({
      name: "warden_audit_spool_bytes",
      help: "Size of the local audit spool waiting for MySQL, in bytes",
      registers,
      collect() {
        this.set(sources.spool().bytes);
      },
    });
    new Gauge({
      name: "warden_audit_spool_events",
      help: "Audit events in the local spool waiting for MySQL",
      registers,
      collect() {
        this.set(sources.spool().events);
      },
    });
    new Gauge({
      name: "warden_audit_spool_full",
      help: "1 while the audit spool is full and new events are being dropped",
      registers,
      collect() {
        this.set(sources.spool().full ? 1 : 0);
      },
    });
    new Gauge({
      name: "warden_audit_buffered_events",
      help: "Audit events in memory waiting for the next batch",
      registers,
      collect() {
        this.set(sources.auditBuffered());
      },
    });
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
