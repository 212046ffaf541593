import { compareSeverity, type Severity } from "./tier-style";

/** Kinds of alert the server evaluates (apps/server/src/alerts, docs/decisions/0130). */
export type AlertKind =
  | "tier"
  | "local-clients"
  | "stale-fence"
  | "renewal-failure"
  | "long-hold"
  | "audit-backlog"
  | "audit-spool-full";

/** An alert as `alert.list` returns it. */
export interface ServerAlert {
  readonly id: string;
  readonly kind: string;
  readonly severity: string;
  readonly summary: string;
  readonly detail: string;
  readonly href: string;
  readonly status: string;
  /** ms since the Unix epoch. */
  readonly startsAt: number;
  readonly endsAt: number | null;
}

/** A webhook's health as `alert.list` returns it. */
export interface ServerDelivery {
  readonly webhook: string;
  readonly format: string;
  readonly lastOutcome: string;
  readonly lastError: string | null;
  readonly lastAttemptAt: number;
  readonly lastSuccessAt: number | null;
  readonly failures: number;
}

/** One row of the console's alert list. */
export interface Alert {
  /** Stable across refreshes, for React keys. */
  readonly id: string;
  readonly kind: string;
  readonly severity: Severity;
  readonly title: string;
  readonly detail: string;
  /** When it started (firing) or ended (resolved), ms since the Unix epoch. */
  readonly atMs: number;
  readonly resolved: boolean;
  readonly href: string;
  readonly hrefLabel: string;
}

const LINK_LABEL: Readonly<Record<AlertKind, string>> = {
  tier: "tier",
  "local-clients": "instances",
  "stale-fence": "events",
  "renewal-failure": "events",
  "long-hold": "holders",
  "audit-backlog": "events",
  "audit-spool-full": "events",
};

function severityOf(value: string): Severity {
  return value === "critical" || value === "warning" || value === "info" ? value : "info";
}

/** Only console paths are linked; anything else goes to the overview. */
function safeHref(href: string): string {
  return href.startsWith("/") && !href.startsWith("//") ? href : "/";
}

function rowOf(alert: ServerAlert): Alert {
  const resolved = alert.status === "resolved";
  return {
    id: alert.id,
    kind: alert.kind,
    severity: resolved ? "ok" : severityOf(alert.severity),
    title: resolved ? `Resolved: ${alert.summary}` : alert.summary,
    detail: alert.detail,
    atMs: resolved && alert.endsAt !== null ? alert.endsAt : alert.startsAt,
    resolved,
    href: safeHref(alert.href),
    hrefLabel: LINK_LABEL[alert.kind as AlertKind] ?? "details",
  };
}

/** Firing alerts worst first (newest first within a severity), then the recently resolved. */
export function alertRows(alerts: readonly ServerAlert[]): {
  readonly firing: Alert[];
  readonly resolved: Alert[];
} {
  const rows = alerts.map(rowOf);
  return {
    firing: rows
      .filter((row) => !row.resolved)
      .sort((a, b) => compareSeverity(a.severity, b.severity) || b.atMs - a.atMs),
    resolved: rows.filter((row) => row.resolved).sort((a, b) => b.atMs - a.atMs),
  };
}

/** A webhook whose last notification was given up on, for the console's notice. */
export interface DeliveryProblem {
  readonly webhook: string;
  readonly text: string;
}

/** Webhooks whose last notification failed after every retry. */
export function deliveryProblems(deliveries: readonly ServerDelivery[]): DeliveryProblem[] {
  return deliveries
    .filter((delivery) => delivery.lastOutcome === "failed")
    .map((delivery) => ({
      webhook: delivery.webhook,
      text: `${delivery.webhook} (${delivery.format}): ${delivery.lastError ?? "failed"}; ${delivery.failures} notification${delivery.failures === 1 ? "" : "s"} lost${delivery.lastSuccessAt === null ? ", never delivered" : ""}`,
    }));
}
