import type { Holder, LockKey, Tier } from "@warden/contract";
import type { LockEvent } from "@warden/core";

/** A lease as its events describe it. */
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
  /** Highest re-entry count seen. */
  reentries: number;
}

/** What the tracker learned from one event. */
export interface Observation {
  /**
   * The lease the event is about, when its grant was seen and it is the lease of the
   * event's own key. Null for a lockId that is unknown, or known under another key — a
   * foreign lockId is treated exactly like an unknown one.
   */
  readonly lease: TrackedLease | null;
  /** Grant-to-release time in ms when the event ended the lease. */
  readonly holdMs: number | null;
}

/**
 * The facts of the lease a release, extend or force-release acted on, as the store kept
 * them with the lease (fence, holder, grantedAt, renewals): any instance gets them, not
 * only the one that saw the grant (docs/decisions/0006).
 */
interface ReportedFacts {
  readonly fence?: string | null;
  readonly holder?: Holder;
  readonly grantedAt?: number;
  readonly renewals?: number;
  readonly expiresAt?: number;
}

function reportedFacts(event: LockEvent): ReportedFacts {
  return event.type === "release" || event.type === "extend" || event.type === "force-release"
    ? event
    : {};
}

/** A lease made from reported facts, for an event whose grant this tracker never saw. */
function leaseOfFacts(event: LockEvent & { lockId: string }): TrackedLease | null {
  const facts = reportedFacts(event);
  if (facts.holder === undefined || typeof facts.grantedAt !== "number") return null;
  return {
    resource: event.resource,
    businessKey: event.businessKey,
    lockId: event.lockId,
    fence: facts.fence ?? null,
    holder: facts.holder,
    tier: event.tier,
    grantedAt: facts.grantedAt,
    expiresAt: facts.expiresAt ?? event.at,
    renewals: facts.renewals ?? 0,
    reentries: 1,
  };
}

// A lease whose expiry passed this long ago without an event is dropped as lapsed.
const LAPSE_GRACE_MS = 5_000;
const NONE: Observation = { lease: null, holdMs: null };

/**
 * Live leases built from lock events, keyed by lockId but only ever matched together
 * with the event's resource and business key: an event naming the lockId of another key
 * (another tenant's, say) finds nothing and changes nothing. It gives the audit and live
 * feed the fence and holder of a grant, the hold time (release.at − grant.at), the
 * live-lock gauge and long-hold detection. It sees every event of the fleet when the
 * fleet bus feeds it (docs/decisions/0071); a lease whose end it never sees lapses here
 * at its expiry.
 */
export class LeaseTracker {
  private readonly leases = new Map<string, TrackedLease>();

  observe(event: LockEvent): Observation {
    if (event.type === "refusal") return NONE;
    const found = this.leases.get(event.lockId);
    // Same lockId under another key: a foreign identifier, not this lease.
    if (found && (found.resource !== event.resource || found.businessKey !== event.businessKey))
      return NONE;
    const known = found ?? null;
    switch (event.type) {
      case "grant": {
        if (known) {
          known.expiresAt = Math.max(known.expiresAt, event.at + event.leaseMs);
          known.reentries = Math.max(known.reentries, event.reentry);
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
          reentries: event.reentry,
        };
        this.leases.set(event.lockId, lease);
        return { lease, holdMs: null };
      }
      case "extend": {
        const renewals = reportedFacts(event).renewals;
        if (known) {
          known.expiresAt = event.at + event.leaseMs;
          known.renewals = renewals ?? known.renewals + 1;
          return { lease: known, holdMs: null };
        }
        // Granted through another instance: known from here on.
        const lease = leaseOfFacts(event);
        if (lease) {
          lease.expiresAt = event.at + event.leaseMs;
          this.leases.set(event.lockId, lease);
        }
        return { lease, holdMs: null };
      }
      case "release": {
        const lease = known ?? leaseOfFacts(event);
        if (lease && event.released) {
          if (known) this.leases.delete(event.lockId);
          return { lease, holdMs: Math.max(0, event.at - lease.grantedAt) };
        }
        return { lease, holdMs: null };
      }
      case "force-release": {
        const lease = known ?? leaseOfFacts(event);
        if (known) this.leases.delete(event.lockId);
        return { lease, holdMs: lease ? Math.max(0, event.at - lease.grantedAt) : null };
      }
      case "expired":
      case "outcome-unknown":
        if (known) this.leases.delete(event.lockId);
        return { lease: known, holdMs: null };
      case "replication-timeout":
        // An undone first grant was never reported granted, so it is not known here; a known
        // lockId is a live lease whose re-entry was undone (one entry given back): it stays.
        return { lease: known, holdMs: null };
    }
  }

  /** Takes a lease another instance knows of, unless this one already tracks it. */
  adopt(lease: TrackedLease): void {
    if (!this.leases.has(lease.lockId)) this.leases.set(lease.lockId, { ...lease });
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

  /** The tracked lease `lockId` of `key`; undefined when unknown or another key's. */
  find(key: LockKey, lockId: string): TrackedLease | undefined {
    const lease = this.leases.get(lockId);
    return lease && lease.resource === key.resource && lease.businessKey === key.businessKey
      ? lease
      : undefined;
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
