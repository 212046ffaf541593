import type { MirrorStats } from "@warden/core";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ResourceKind } from "../schemas/resource-policy.js";
import { AppLabels } from "./app-labels.js";
import { BoundChildren } from "./bound-children.js";

/** A count of live holds of one resource, and the resource's kind. */
export interface HoldCount {
  readonly resource: string;
  readonly kind: ResourceKind;
  readonly count: number;
}

/** What the metrics read from live state at scrape time. */
export interface MetricSources {
  /** Live holds of every kind (leases, permit grants, read-write grants), by resource. */
  liveHolds(): readonly HoldCount[];
  /** Live holds past 3× their resource's expectedHoldMs, by resource. */
  longHolds(): Promise<readonly HoldCount[]>;
  waitersByResource(): Map<string, number>;
  tier(): string;
  epoch(): number;
  spool(): { bytes: number; events: number; full: boolean };
  auditBuffered(): number;
  /** The Redis lease mirror's counters since this process started. */
  mirror(): MirrorStats;
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
  /** The `app` label of the lock metrics (the API key's name, capped). */
  readonly apps = new AppLabels();
  readonly acquireTotal: Counter<"resource" | "tier" | "outcome" | "app">;
  readonly acquireDuration: Histogram<"resource" | "tier" | "outcome" | "app">;
  readonly holdDuration: Histogram<"resource">;
  readonly renewFailures: Counter<"resource" | "app">;
  readonly releases: Counter<"resource" | "outcome" | "app">;
  readonly forceReleases: Counter<"resource">;
  readonly replicationTimeouts: Counter<"resource">;
  readonly staleFenceRejections: Counter<"resource" | "app">;
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
      help: "lock.acquire calls by resource, tier, outcome (granted, refused, timeout, unavailable, cancelled, error) and calling application (API key name)",
      labelNames: ["resource", "tier", "outcome", "app"],
      registers,
    });
    this.acquireDuration = new Histogram({
      name: "warden_acquire_duration_seconds",
      help: "lock.acquire latency including any server-side wait, in seconds",
      labelNames: ["resource", "tier", "outcome", "app"],
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
      help: "lock.extend calls refused because the lease was gone, held by another grant or at its renewal limit",
      labelNames: ["resource", "app"],
      registers,
    });
    this.releases = new Counter({
      name: "warden_release_total",
      help: "lock.release calls by resource, outcome (released, reentry-left, not-holder) and calling application",
      labelNames: ["resource", "outcome", "app"],
      registers,
    });
    this.forceReleases = new Counter({
      name: "warden_force_releases_total",
      help: "Leases force-released: by an operator, or a holder gone past releaseOnDisconnectMs",
      labelNames: ["resource"],
      registers,
    });
    this.replicationTimeouts = new Counter({
      name: "warden_replication_timeouts_total",
      help: "Grants undone because fewer Redis replicas than the resource's waitReplicas acknowledged them in time (the caller got REPLICATION_TIMEOUT), every kind",
      labelNames: ["resource"],
      registers,
    });
    this.staleFenceRejections = new Counter({
      name: "warden_stale_fence_rejections_total",
      help: "Writes refused by an SDK fence guard because a newer holder's fence was recorded",
      labelNames: ["resource", "app"],
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
      help: "Live holds by resource and its kind: mutex leases (kind=mutex), semaphore permit grants (kind=semaphore, one per grant whatever its permits) and read and write grants (kind=rwlock), as this instance tracks them: the whole fleet's when instances share a Redis (every instance reports the same number; aggregate with max), else this instance's",
      labelNames: ["resource", "kind"],
      registers,
      collect() {
        this.reset();
        for (const { resource, kind, count } of sources.liveHolds())
          this.set({ resource, kind }, count);
      },
    });
    new Gauge({
      name: "warden_long_holds",
      help: "Live holds older than 3x their resource's expectedHoldMs (resources without one: none), by resource and kind, from the same holds as warden_live_locks: the whole fleet's when instances share a Redis (aggregate with max)",
      labelNames: ["resource", "kind"],
      registers,
      async collect() {
        const counts = await sources.longHolds();
        this.reset();
        for (const { resource, kind, count } of counts) this.set({ resource, kind }, count);
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
    new Counter({
      name: "warden_lease_mirror_writes_total",
      help: "Redis lease changes (grants, renewals, ends) this instance wrote to MySQL's redis_lease_mirror, which keeps the MySQL tier from granting a key still leased on Redis after a degrade",
      registers,
      collect() {
        this.reset();
        this.inc(sources.mirror().written);
      },
    });
    new Counter({
      name: "warden_lease_mirror_dropped_total",
      help: "Redis lease changes the lease mirror gave up because 100 000 keys were already buffered (a refused batch is kept for the next one, so a long MySQL failure fills the buffer): after a degrade the MySQL tier does not know those leases, and exclusion from them rests on the new epoch's larger fences (alert on any increase)",
      registers,
      collect() {
        this.reset();
        this.inc(sources.mirror().dropped);
      },
    });
    new Counter({
      name: "warden_lease_mirror_batches_total",
      help: "Batches the Redis lease mirror sent to MySQL (every 200 ms while it has changes), by outcome; a failed batch is retried with the next",
      labelNames: ["outcome"],
      registers,
      collect() {
        const { batches } = sources.mirror();
        this.reset();
        this.labels({ outcome: "ok" }).inc(batches.ok);
        this.labels({ outcome: "failed" }).inc(batches.failed);
      },
    });
    new Gauge({
      name: "warden_lease_mirror_pending",
      help: "Redis lease changes buffered for the lease mirror's next batch (refused batches included); changes are dropped at 100 000",
      registers,
      collect() {
        this.set(sources.mirror().pending);
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

  private readonly acquireChildren = new BoundChildren(([resource, tier, outcome, app]) => {
    const labels = { resource, tier, outcome, app };
    return {
      total: this.acquireTotal.labels(labels),
      duration: this.acquireDuration.labels(labels),
    };
  });
  private readonly holdChildren = new BoundChildren(([resource]) =>
    this.holdDuration.labels({ resource }),
  );
  private readonly releaseChildren = new BoundChildren(([resource, outcome, app]) =>
    this.releases.labels({ resource, outcome, app }),
  );
  private readonly renewFailureChildren = new BoundChildren(([resource, app]) =>
    this.renewFailures.labels({ resource, app }),
  );
  private readonly staleFenceChildren = new BoundChildren(([resource, app]) =>
    this.staleFenceRejections.labels({ resource, app }),
  );

  /** Counts one lock.acquire and observes its latency, in seconds. */
  recordAcquire(resource: string, tier: string, outcome: string, app: string, seconds: number) {
    const child = this.acquireChildren.get(resource, tier, outcome, app);
    child.total.inc();
    child.duration.observe(seconds);
  }

  /** Observes one hold (grant to release), in seconds. */
  recordHold(resource: string, seconds: number): void {
    this.holdChildren.get(resource).observe(seconds);
  }

  /** Counts one lock.release by outcome. */
  recordRelease(resource: string, outcome: string, app: string): void {
    this.releaseChildren.get(resource, outcome, app).inc();
  }

  /** Counts one refused lock.extend. */
  recordRenewFailure(resource: string, app: string): void {
    this.renewFailureChildren.get(resource, app).inc();
  }

  /** Counts one write an SDK fence guard refused. */
  recordStaleFence(resource: string, app: string): void {
    this.staleFenceChildren.get(resource, app).inc();
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
