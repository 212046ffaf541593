import { formatDuration } from "./format-time";
import { eventsHref, resourceHref } from "./links";
import { compareSeverity, type Severity, type Tier } from "./tier-style";

/** Kinds of alert the console raises. */
export type AlertKind =
  | "long-hold"
  | "renewal-failure"
  | "stale-fence"
  | "tier"
  | "audit-backlog"
  | "local-clients";

/** One thing the person on call should look at, with where to look. */
export interface Alert {
  /** Stable across refreshes, for React keys and acknowledgement. */
  readonly id: string;
  readonly kind: AlertKind;
  readonly severity: Severity;
  readonly title: string;
  readonly detail: string;
  /** When it started, ms since the Unix epoch. */
  readonly atMs: number;
  readonly href: string;
  readonly hrefLabel: string;
}

/** A live hold, as alert derivation reads it. */
export interface HoldFact {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  /** First grant, ms since the Unix epoch. */
  readonly grantedAtMs: number;
}

/** An audit event, as alert derivation reads it. */
export interface EventFact {
  readonly id: string;
  readonly type: string;
  readonly resource: string;
  readonly businessKey: string | null;
  readonly lockId: string | null;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly atMs: number;
  readonly reason: string | null;
}

/** Everything alerts are derived from; parts the server did not answer are empty. */
export interface AlertInputs {
  readonly nowMs: number;
  readonly tier: { readonly tier: Tier; readonly sinceMs: number; readonly reason: string } | null;
  readonly transitions: readonly {
    readonly id: string;
    readonly fromTier: Tier;
    readonly toTier: Tier;
    readonly atMs: number;
    readonly reason: string;
    readonly actor: string;
  }[];
  readonly expectedHoldMs: ReadonlyMap<string, number | null>;
  readonly holds: readonly HoldFact[];
  /** Recent events of the alerting types (stale-fence, expired, local-mode …). */
  readonly events: readonly EventFact[];
  /** The audit writer's spool: events waiting for MySQL, and whether it is full (dropping). */
  readonly audit: { readonly spooledEvents: number; readonly spoolFull: boolean } | null;
  readonly clients: readonly {
    readonly clientId: string;
    readonly tier: Tier;
    readonly localSinceMs: number | null;
  }[];
}

/** Settings of {@link deriveAlerts}. */
export interface AlertThresholds {
  /** A hold alerts past this many times the resource's expectedHoldMs. @defaultValue 3 */
  readonly longHoldFactor: number;
  /** Tier changes younger than this are listed, in ms. @defaultValue 3 600 000 (1 h) */
  readonly tierChangeWindowMs: number;
}

/** Defaults of {@link deriveAlerts}: DESIGN.md §2 alerts past 3× expectedHoldMs. */
export const ALERT_DEFAULTS: AlertThresholds = Object.freeze({
  longHoldFactor: 3,
  tierChangeWindowMs: 3_600_000,
});

function longHolds(input: AlertInputs, factor: number): Alert[] {
  return input.holds.flatMap((hold) => {
    const expected = input.expectedHoldMs.get(hold.resource) ?? null;
    const heldMs = input.nowMs - hold.grantedAtMs;
    if (expected === null || heldMs <= factor * expected) return [];
    return [
      {
        id: `long-hold:${hold.lockId}`,
        kind: "long-hold" as const,
        severity: heldMs > 10 * expected ? ("critical" as const) : ("warning" as const),
        title: `Long hold on ${hold.resource} / ${hold.businessKey}`,
        detail: `${hold.clientId}/${hold.ownerId} has held it for ${formatDuration(heldMs)} (expected ${formatDuration(expected)}, alert past ${factor}×)${hold.fence === null ? "" : `; fence ${hold.fence}`}.`,
        atMs: hold.grantedAtMs + factor * expected,
        href: resourceHref(hold.resource),
        hrefLabel: "holders",
      },
    ];
  });
}

function eventAlerts(input: AlertInputs): Alert[] {
  return input.events.flatMap((event): Alert[] => {
    const where =
      event.businessKey === null ? event.resource : `${event.resource} / ${event.businessKey}`;
    switch (event.type) {
      case "stale-fence":
        return [
          {
            id: `stale-fence:${event.id}`,
            kind: "stale-fence",
            severity: "critical",
            title: `Stale fence rejected on ${where}`,
            detail: `A guard refused a write with fence ${event.fence ?? "?"}${event.clientId ? ` from ${event.clientId}` : ""}: an old holder kept writing after losing its lease.${event.reason ? ` ${event.reason}` : ""}`,
            atMs: event.atMs,
            href:
              event.fence === null
                ? eventsHref({ resource: event.resource, type: "stale-fence" })
                : eventsHref({ fence: event.fence }),
            hrefLabel: "event",
          },
        ];
      case "expired":
        return [
          {
            id: `renewal-failure:${event.id}`,
            kind: "renewal-failure",
            severity: "warning",
            title: `Lease lost on ${where}`,
            detail: `${event.clientId ?? "A holder"} tried to renew or release lock ${event.lockId ?? "?"} after its lease had expired.`,
            atMs: event.atMs,
            href:
              event.lockId === null
                ? resourceHref(event.resource)
                : eventsHref({ lockId: event.lockId }),
            hrefLabel: "event",
          },
        ];
      default:
        return [];
    }
  });
}

function tierAlerts(input: AlertInputs, windowMs: number): Alert[] {
  const alerts: Alert[] = [];
  if (input.tier !== null && input.tier.tier !== "redis") {
    alerts.push({
      id: `tier-now:${input.tier.tier}:${input.tier.sinceMs}`,
      kind: "tier",
      severity: input.tier.tier === "local" ? "critical" : "warning",
      title: `Tier is ${input.tier.tier.toUpperCase()} since ${formatDuration(input.nowMs - input.tier.sinceMs)} ago`,
      detail: input.tier.reason,
      atMs: input.tier.sinceMs,
      href: "/tier",
      hrefLabel: "tier",
    });
  }
  for (const change of input.transitions) {
    if (input.nowMs - change.atMs > windowMs) continue;
    alerts.push({
      id: `tier-change:${change.id}`,
      kind: "tier",
      severity: "info",
      title: `Tier changed ${change.fromTier} → ${change.toTier}`,
      detail: `${change.reason} (by ${change.actor})`,
      atMs: change.atMs,
      href: "/tier",
      hrefLabel: "tier history",
    });
  }
  return alerts;
}

function auditAlerts(input: AlertInputs): Alert[] {
  const audit = input.audit;
  if (audit === null) return [];
  const alerts: Alert[] = [];
  if (audit.spooledEvents > 0) {
    alerts.push({
      id: "audit-backlog",
      kind: "audit-backlog",
      severity: "warning",
      title: `Audit spool backlog: ${audit.spooledEvents} events`,
      detail:
        "Audit events wait on local disk until MySQL accepts them; search results miss them until then.",
      atMs: input.nowMs,
      href: eventsHref(),
      hrefLabel: "events",
    });
  }
  if (audit.spoolFull) {
    alerts.push({
      id: "audit-spool-full",
      kind: "audit-backlog",
      severity: "critical",
      title: "Audit spool full: events are being dropped",
      detail:
        "The audit spool reached its size cap while MySQL is unreachable; new audit events are lost until it drains.",
      atMs: input.nowMs,
      href: eventsHref(),
      hrefLabel: "events",
    });
  }
  return alerts;
}

function localClientAlerts(input: AlertInputs): Alert[] {
  const local = input.clients.filter(
    (client) => client.tier === "local" || client.localSinceMs !== null,
  );
  if (local.length === 0) return [];
  const since = Math.min(...local.map((client) => client.localSinceMs ?? input.nowMs));
  return [
    {
      id: "local-clients",
      kind: "local-clients",
      severity: "critical",
      title: `${local.length} SDK instance${local.length === 1 ? "" : "s"} on local (unfenced) locks`,
      detail:
        local
          .map((client) => client.clientId)
          .slice(0, 5)
          .join(", ") + (local.length > 5 ? " …" : ""),
      atMs: since,
      href: "/",
      hrefLabel: "instances",
    },
  ];
}

/** Every alert the inputs justify, worst first, newest first within a severity. */
export function deriveAlerts(
  input: AlertInputs,
  thresholds: AlertThresholds = ALERT_DEFAULTS,
): Alert[] {
  return [
    ...tierAlerts(input, thresholds.tierChangeWindowMs),
    ...localClientAlerts(input),
    ...eventAlerts(input),
    ...longHolds(input, thresholds.longHoldFactor),
    ...auditAlerts(input),
  ].sort((a, b) => compareSeverity(a.severity, b.severity) || b.atMs - a.atMs);
}
