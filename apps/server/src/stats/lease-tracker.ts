import type { Holder, LockEvent, Tier } from "@warden/core";

/** A lease granted through this instance, as its events describe it. */
export interface TrackedLease {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  readonly tier: Tier;
  /** First grant, ms since the Unix epoch (store event time). */
  readonly grantedAt: number;
  /** Latest known expiry, ms since the Unix epoch (grant or extend time + lease). */
  expiresAt: number;
  renewals: number;
}

/** What the tracker learned from one event. */
export interface Observation {
  /** The lease the event is about, when this instance saw its grant. */
  readonly lease: TrackedLease | null;
  /** Grant-to-release time in ms when the event ended the lease. */
  readonly holdMs: number | null;
}

// A lease whose expiry passed this long ago without an event is dropped as lapsed.
const LAPSE_GRACE_MS = 5_000;

/**
 * Leases granted through this instance, keyed by lockId, built from store events: it
 * gives release rows the fence and holder of their grant (so the audit is searchable by
 * fence), the hold time (release.at − grant.at), and the live-lock gauge. Per instance;
 * a lease released through another instance lapses here at its expiry.
 */
export class LeaseTracker {
  private readonly leases = new Map<string, TrackedLease>();

  observe(event: LockEvent): Observation {
    const known = "lockId" in event ? (this.leases.get(event.lockId) ?? null) : null;
    switch (event.type) {
      case "grant": {
        if (known) {
          known.expiresAt = Math.max(known.expiresAt, event.at + event.leaseMs);
          return { lease: known, holdMs: null };
        }
        const lease: TrackedLease = {
          resource: event.resource,
          businessKey: event.businessKey,
          lockId: event.lockId,
          fence: event.fence,
          holder: event.holder,
          tier: event.tier,
          grantedAt: event.at,
          expiresAt: event.at + event.leaseMs,
          renewals: 0,
        };
        this.leases.set(event.lockId, lease);
        return { lease, holdMs: null };
      }
      case "extend":
        if (known) {
          known.expiresAt = event.at + event.leaseMs;
          known.renewals += 1;
        }
        return { lease: known, holdMs: null };
      case "release":
        if (known && event.released) {
          this.leases.delete(event.lockId);
          return { lease: known, holdMs: event.at - known.grantedAt };
        }
        return { lease: known, holdMs: null };
      case "force-release":
        this.leases.delete(event.lockId);
        return { lease: known, holdMs: known ? event.at - known.grantedAt : null };
      case "expired":
      case "outcome-unknown":
      case "replication-timeout":
        this.leases.delete(event.lockId);
        return { lease: known, holdMs: null };
      case "refusal":
        return { lease: null, holdMs: null };
    }
  }

  /** Drops leases past their expiry (released elsewhere or lapsed); returns them. */
  sweep(now = Date.now()): TrackedLease[] {
    const lapsed: TrackedLease[] = [];
    for (const [lockId, lease] of this.leases) {
      if (lease.expiresAt + LAPSE_GRACE_MS < now) {
        this.leases.delete(lockId);
        lapsed.push(lease);
      }
    }
    return lapsed;
  }

  /** The tracked lease of a lockId, if any. */
  get(lockId: string): TrackedLease | undefined {
    return this.leases.get(lockId);
  }

  /** Live leases per resource. */
  countsByResource(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const lease of this.leases.values())
      counts.set(lease.resource, (counts.get(lease.resource) ?? 0) + 1);
    return counts;
  }

  /** Every tracked lease (for long-hold alerts). */
  all(): IterableIterator<TrackedLease> {
    return this.leases.values();
  }
}
