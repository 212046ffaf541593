/** What a server-evaluated alert is about (docs/decisions/0130). */
export type AlertKind =
  | "tier"
  | "local-clients"
  | "stale-fence"
  | "renewal-failure"
  | "long-hold"
  | "audit-backlog"
  | "audit-spool-full";

export type AlertSeverity = "critical" | "warning" | "info";

export type AlertStatus = "firing" | "resolved";

/** A condition that holds now, as one evaluation found it. */
export interface AlertFact {
  /** Stable per condition across evaluations and instances. */
  readonly id: string;
  readonly kind: AlertKind;
  readonly severity: AlertSeverity;
  /** The tenant owning the resource or clients; null for fleet-wide alerts (operators only). */
  readonly tenantId: string | null;
  readonly resource: string | null;
  /** Extra labels for receivers (strings only). */
  readonly labels: Readonly<Record<string, string>>;
  readonly summary: string;
  readonly detail: string;
  /** Console path to look at. */
  readonly href: string;
  /** When the condition began, ms since the Unix epoch. */
  readonly startsAt: number;
}

/** An alert as stored and delivered: a fact with its state over time. */
export interface AlertRecord extends AlertFact {
  readonly status: AlertStatus;
  /** When it resolved; null while firing. */
  readonly endsAt: number | null;
  readonly updatedAt: number;
  /** The status every webhook was last told (delivered or given up on); null: not yet. */
  readonly notifiedStatus: AlertStatus | null;
  readonly notifiedAt: number | null;
}

/** The Alertmanager alert name of each kind: the rules' names where a rule exists (0110). */
export const ALERT_NAMES: Readonly<Record<AlertKind, string>> = {
  tier: "WardenDegradedTier",
  "local-clients": "WardenLocalClients",
  "stale-fence": "WardenStaleFenceRejected",
  "renewal-failure": "WardenRenewalFailures",
  "long-hold": "WardenLongHolds",
  "audit-backlog": "WardenAuditSpoolBacklog",
  "audit-spool-full": "WardenAuditSpoolFull",
};
