import type { TimelineEvent } from "./key-timeline";

/** An audit event as `event.search` answers it (the fields the key timeline reads). */
export interface AuditHoldEvent {
  readonly type: string;
  /** When it happened, ms since the Unix epoch. */
  readonly at: number;
  readonly lockId: string | null;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  readonly leaseMs: number | null;
  readonly reason: string | null;
}

/**
 * The audit names a hold's steps per primitive: a lock's `grant` / `release` / `expired`
 * (read from its hold row, docs/decisions/0070), a semaphore's `permit-grant` /
 * `permit-release` / `permit-expired` (docs/decisions/0161) and a read-write lock's
 * `rwlock-grant` / `rwlock-release` / `rwlock-expired` (docs/decisions/0166). The timeline
 * knows one vocabulary. Operator removals are `force-release` whatever the primitive, or a
 * per-primitive name.
 */
const STEP_OF: Readonly<Record<string, string>> = {
  grant: "grant",
  extend: "extend",
  release: "release",
  "force-release": "force-release",
  expired: "expired",
  "permit-grant": "grant",
  "permit-release": "release",
  "permit-expired": "expired",
  "permit-force-release": "force-release",
  "rwlock-grant": "grant",
  "rwlock-release": "release",
  "rwlock-expired": "expired",
  "rwlock-force-release": "force-release",
};

// A read-write event's reason starts with the grant's mode ("read", "write (re-entry)",
// "read: the lease ended without a release").
const MODE = /^(read|write)\b/;
// A re-entered grant's release that leaves entries ("read: one entry released, 1 left"): the
// grant is still held.
const ENTRY_LEFT = /one entry released/;

function modeOf(event: AuditHoldEvent): "read" | "write" | null {
  if (!event.type.startsWith("rwlock-")) return null;
  const match = MODE.exec(event.reason ?? "");
  return match ? (match[1] as "read" | "write") : null;
}

/**
 * The audit events of one key as the timeline's steps of holds: every primitive's grant,
 * release, force-release and expiry under one name, a read-write grant's mode kept, and a
 * release that leaves re-entries as a step that ends nothing. Events that are not steps of
 * a hold (refusals, policy changes, release requests) are left out.
 */
export function holdEventsOf(events: readonly AuditHoldEvent[]): TimelineEvent[] {
  return events.flatMap((event) => {
    const step = STEP_OF[event.type];
    if (step === undefined || event.lockId === null) return [];
    const partial =
      event.type === "rwlock-release" && ENTRY_LEFT.test(event.reason ?? "")
        ? "entry-released"
        : null;
    return [
      {
        type: partial ?? step,
        atMs: event.at,
        lockId: event.lockId,
        fence: event.fence,
        clientId: event.clientId,
        ownerId: event.ownerId,
        leaseMs: event.leaseMs,
        mode: modeOf(event),
      },
    ];
  });
}

/** A grant the store holds now (a lease, a permit grant, a read or write grant). */
export interface LiveGrant {
  readonly lockId: string;
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  /** On the store's clock; null when the store does not know it (another instance granted it). */
  readonly grantedAt: number | null;
  readonly mode?: "read" | "write" | null;
}

/**
 * Steps for the grants held now, so that the timeline draws every live grant even when its
 * audit row is not readable yet (the audit writer flushes in batches, after the live feed
 * has already announced the grant) or fell out of the events read (a permit's renewals are kept
 * in its audit row but never searched as events): a grant at its grant time, or, when that is unknown, a step at `fromMs` (the
 * bar starts at the window's edge). Where the audit has the grant too, the two describe the
 * same hold (one lockId) and it is drawn once.
 */
export function liveHoldEvents(live: readonly LiveGrant[], fromMs: number): TimelineEvent[] {
  return live.map((grant) => ({
    type: grant.grantedAt === null ? "live" : "grant",
    atMs: grant.grantedAt ?? fromMs,
    lockId: grant.lockId,
    fence: grant.fence,
    clientId: grant.clientId,
    ownerId: grant.ownerId,
    leaseMs: null,
    mode: grant.mode ?? null,
  }));
}

/** The mode of a `holder.list` row: a read-write grant's `read` / `write`; null for others. */
export function modeOfKind(kind: string): "read" | "write" | null {
  return kind === "read" || kind === "write" ? kind : null;
}
