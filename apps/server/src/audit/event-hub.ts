import type { LockKey } from "@warden/contract";
import type { LockEvent, StoreEvent } from "@warden/core";
import type { Logger } from "pino";
import type { FleetBus } from "../live/fleet-bus.js";
import type { LiveBus } from "../live/live-bus.js";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import { keyString } from "../locks/lock-key.js";
import type { Metrics } from "../metrics/metrics.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { LeaseTracker, TrackedLease } from "../stats/lease-tracker.js";
import type { StatsCollector } from "../stats/stats-collector.js";
import { endHold, recordOfEvent, type AuditRecord, type HoldPart } from "./audit-record.js";
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
  /** Shares events with the other instances, when there is a fleet. */
  readonly fleet?: FleetBus;
  readonly logger: Logger;
}

/**
 * The one bus of lock events (docs/decisions/0070): the store event sink handed to
 * TieredLocks. Each event is matched once with its lease (tracker, scoped by key), then
 * goes to the audit (one row per hold, refusals counted per minute), the hold-time
 * statistics and metrics, the live feed (which the fleet bus shares between instances),
 * and a freed key wakes its waiters here and on other instances. Synchronous and
 * non-throwing: it runs on the store's hot path.
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
    this.publish(targets, record);
  }

  /**
   * Records a step of a hold the server tracks itself, a semaphore permit grant
   * (docs/decisions/0196) or a read-write lock's grant (docs/decisions/0199): published to
   * the live feed and the fleet like {@link record}, but audited in the hold's `lock_hold`
   * row instead of an event row. `fill` writes what the step tells into the hold's pending
   * part (named by the record's lockId and key). A record without a lockId or business key
   * names no hold and is written as an event row. A step that ends the hold (its part gets
   * an end) with the grant time known feeds the console's hold-time statistics, as a mutex
   * lease's end does.
   */
  recordHold(record: AuditRecord, fill: (part: HoldPart) => void): void {
    const targets = this.targets;
    if (!targets) return;
    if (record.lockId === null || record.businessKey === null) {
      targets.audit.write(record);
    } else {
      const part = targets.audit.hold(
        record.lockId,
        record.tenantId,
        record.resource,
        record.businessKey,
        record.at,
      );
      const endedBefore = part.endedAt;
      fill(part);
      if (endedBefore === null && part.endedAt !== null && part.grantedAt !== null)
        targets.stats.recordHold(record.resource, Math.max(0, part.endedAt - part.grantedAt));
    }
    this.publish(targets, record);
  }

  /**
   * The pending part of a hold the server tracks itself, for a step that is audited but
   * not published (a permit's or a read-write grant's renewal); undefined before `attach`.
   */
  hold(
    lockId: string,
    tenantId: string | null,
    resource: string,
    businessKey: string,
    at: number,
  ): HoldPart | undefined {
    return this.targets?.audit.hold(lockId, tenantId, resource, businessKey, at);
  }

  /**
   * Records a renewal of a grant the server tracks itself (a permit's or a read-write
   * grant's) in its hold row, not published (decisions 0196, 0199): `fill` puts the grant's
   * facts in the part, then the renewal count, time and lease, so the audit's lapse sweep
   * does not close a renewed grant at its first expiry.
   */
  renewHold(
    tenantId: string | null,
    resource: string,
    view: { readonly lockId: string; readonly businessKey: string; readonly renewals: number },
    leaseMs: number,
    fill: (part: HoldPart) => void,
  ): void {
    const now = Date.now();
    const part = this.hold(view.lockId, tenantId, resource, view.businessKey, now);
    if (!part) return;
    fill(part);
    part.renewals = Math.max(part.renewals, view.renewals);
    part.renewedAt = now;
    part.renewLeaseMs = leaseMs;
  }

  private publish(targets: EventHubTargets, record: AuditRecord): void {
    targets.live.publish({ kind: "event", event: record });
    targets.fleet?.record(record);
  }

  private handle(event: StoreEvent): void {
    const targets = this.targets;
    if (!targets) return;
    if (event.type === "epoch") {
      // Every instance sees its own epoch events: not shared.
      const record = recordOfEvent(event, { tenantId: null, lease: null });
      targets.audit.write(record);
      targets.live.publish({ kind: "event", event: record });
      return;
    }
    const { lease, holdMs } = targets.tracker.observe(event);
    const tenantId = targets.registry.ownerOf(event.resource);
    targets.fleet?.lockEvent(event, tenantId);
    // A release or renewal that found no lease, naming a lockId this server does not know
    // for this key (unknown, or another key's — another tenant's): nothing to audit. If it
    // was a real hold granted elsewhere, its row is closed as lapsed after its expiry. The
    // key is free either way: its waiters may try.
    if (event.type === "expired" && lease === null) {
      targets.notifier.released(event);
      return;
    }
    const attribution =
      event.type === "force-release" ? this.attributions.get(keyString(event)) : undefined;
    this.audit(targets.audit, event, tenantId, lease, attribution);
    if (targets.live.active) {
      targets.live.publish({
        kind: "event",
        event: recordOfEvent(event, {
          tenantId,
          lease,
          actor: attribution?.actor ?? null,
          reason: attribution?.reason ?? null,
        }),
      });
    }
    if (holdMs !== null) {
      targets.stats.recordHold(event.resource, holdMs);
      targets.metrics.recordHold(event.resource, holdMs / 1000);
    }
    if (event.type === "force-release")
      targets.metrics.forceReleases.inc({ resource: event.resource });
    else if (event.type === "replication-timeout")
      targets.metrics.replicationTimeouts.inc({ resource: event.resource });
    const freed =
      (event.type === "release" && event.released) ||
      event.type === "force-release" ||
      event.type === "expired";
    // A release the store saw nobody refused (Redis: no watch mark, decision 0206) wakes
    // only this instance's listeners: no other instance can have a waiter or a watch on it.
    if (freed)
      targets.notifier.released(event, event.type !== "release" || event.watched !== false);
  }

  /** Writes what the event tells about its hold (or a refusal count, or an event row). */
  private audit(
    audit: AuditWriter,
    event: LockEvent,
    tenantId: string | null,
    lease: TrackedLease | null,
    attribution: { actor: string; reason: string } | undefined,
  ): void {
    switch (event.type) {
      case "refusal":
        audit.refusal(
          tenantId,
          event.resource,
          event.at,
          `${event.heldBy.clientId}/${event.heldBy.ownerId}`,
        );
        return;
      case "grant": {
        const part = audit.hold(
          event.lockId,
          tenantId,
          event.resource,
          event.businessKey,
          event.at,
        );
        part.fence = event.fence;
        part.clientId = event.holder.clientId;
        part.ownerId = event.holder.ownerId;
        part.tier = event.tier;
        part.grantedAt = lease?.grantedAt ?? event.at;
        part.leaseMs ??= event.leaseMs;
        part.reentries = Math.max(part.reentries, event.reentry);
        part.expiresAt = Math.max(part.expiresAt ?? 0, event.at + event.leaseMs);
        return;
      }
      case "extend": {
        const part = this.leasePart(audit, event, tenantId, lease);
        part.renewals = Math.max(part.renewals, lease?.renewals ?? 1);
        part.renewedAt = event.at;
        part.renewLeaseMs = event.leaseMs;
        part.expiresAt = Math.max(part.expiresAt ?? 0, event.at + event.leaseMs);
        return;
      }
      case "release":
        // A release that leaves re-entries changes no holder: the hold goes on.
        if (!event.released) return;
        endHold(this.leasePart(audit, event, tenantId, lease), "released", event.at);
        return;
      case "expired":
        endHold(this.leasePart(audit, event, tenantId, lease), "expired", event.at);
        return;
      case "force-release": {
        const part = this.leasePart(audit, event, tenantId, lease);
        part.clientId ??= event.holder.clientId;
        part.ownerId ??= event.holder.ownerId;
        endHold(part, "force-released", event.at);
        part.actor = attribution?.actor ?? null;
        part.reason = attribution?.reason ?? null;
        return;
      }
      case "outcome-unknown":
      case "replication-timeout":
        audit.write(recordOfEvent(event, { tenantId, lease }));
        return;
    }
  }

  /** The pending part of the event's hold, with what the tracker knows of its grant. */
  private leasePart(
    audit: AuditWriter,
    event: LockEvent & { lockId: string },
    tenantId: string | null,
    lease: TrackedLease | null,
  ) {
    const part = audit.hold(event.lockId, tenantId, event.resource, event.businessKey, event.at);
    if (lease) {
      part.fence ??= lease.fence;
      part.clientId ??= lease.holder.clientId;
      part.ownerId ??= lease.holder.ownerId;
      part.tier ??= lease.tier;
      part.grantedAt ??= lease.grantedAt;
    }
    return part;
  }
}
