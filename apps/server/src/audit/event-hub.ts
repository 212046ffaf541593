import type { LockKey, StoreEvent } from "@warden/core";
import type { Logger } from "pino";
import type { LiveBus } from "../live/live-bus.js";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import { keyString } from "../locks/lock-key.js";
import type { Metrics } from "../metrics/metrics.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { LeaseTracker } from "../stats/lease-tracker.js";
import type { StatsCollector } from "../stats/stats-collector.js";
import { recordOfEvent, type AuditRecord } from "./audit-record.js";
import type { AuditWriter } from "./audit-writer.js";

/** What the hub fans events out to. */
export interface EventHubTargets {
  readonly audit: AuditWriter;
  readonly tracker: LeaseTracker;
  readonly stats: StatsCollector;
  readonly metrics: Metrics;
  readonly notifier: ReleaseNotifier;
  readonly registry: ResourceRegistry;
  readonly live: LiveBus;
  readonly logger: Logger;
}

/**
 * The store event sink handed to TieredLocks. Every event becomes an audit record (with
 * the owning tenant and, for releases, the fence and holder of the grant), feeds the
 * hold-time statistics, and a freed key wakes its waiters here and on other instances.
 * Synchronous and non-throwing: it runs on the store's hot path.
 */
export class EventHub {
  private targets: EventHubTargets | undefined;
  /** Operator name and reason for a force-release in progress, by key. */
  private readonly attributions = new Map<string, { actor: string; reason: string }>();

  /** The sink to pass to the stores; events before `attach` are not lost, just unaudited. */
  readonly sink = (event: StoreEvent): void => {
    try {
      this.handle(event);
    } catch (error) {
      this.targets?.logger.error({ err: error, event: event.type }, "event hub failed");
    }
  };

  attach(targets: EventHubTargets): void {
    this.targets = targets;
  }

  /** Attributes the next force-release event of `key` to an operator (set around the call). */
  attribute(key: LockKey, actor: string, reason: string): () => void {
    const name = keyString(key);
    this.attributions.set(name, { actor, reason });
    return () => this.attributions.delete(name);
  }

  /** Records an event the server itself produced (tier change, stale fence report). */
  record(record: AuditRecord): void {
    const targets = this.targets;
    if (!targets) return;
    targets.audit.write(record);
    targets.live.publish({ kind: "event", event: record });
  }

  private handle(event: StoreEvent): void {
    const targets = this.targets;
    if (!targets) return;
    if (event.type === "epoch") {
      this.record(recordOfEvent(event, { tenantId: null, lease: null }));
      return;
    }
    const { lease, holdMs } = targets.tracker.observe(event);
    const attribution =
      event.type === "force-release" ? this.attributions.get(keyString(event)) : undefined;
    const record = recordOfEvent(event, {
      tenantId: targets.registry.ownerOf(event.resource),
      lease,
      actor: attribution?.actor ?? null,
      reason: attribution?.reason ?? null,
    });
    this.record(record);
    if (holdMs !== null) {
      targets.stats.recordHold(event.resource, holdMs);
      targets.metrics.holdDuration.observe({ resource: event.resource }, holdMs / 1000);
    }
    if (event.type === "force-release")
      targets.metrics.forceReleases.inc({ resource: event.resource });
    const freed =
      (event.type === "release" && event.released) ||
      event.type === "force-release" ||
      event.type === "expired";
    if (freed) targets.notifier.released(event);
  }
}
