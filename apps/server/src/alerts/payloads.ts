import type { AlertRecord } from "./alert-types.js";

/** Alertmanager's `severity` convention of the shipped rules (0110): page or ticket. */
function routeSeverity(record: AlertRecord): string {
  return record.severity === "critical" ? "page" : "ticket";
}

function consoleLink(consoleUrl: string | null, href: string): string | undefined {
  return consoleUrl === null ? undefined : new URL(href, consoleUrl).toString();
}

/** One alert of Alertmanager's `POST /api/v2/alerts` body (postableAlert). */
export interface AlertmanagerAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly generatorURL?: string;
}

/**
 * The Alertmanager body: a still-firing alert carries an `endsAt` of now + 4 × its
 * repeat interval (as Prometheus does), so Alertmanager resolves it by itself should the
 * evaluator vanish; a resolved one carries its real end.
 */
export function alertmanagerBody(
  records: readonly AlertRecord[],
  now: number,
  repeatMs: number,
  consoleUrl: string | null,
): AlertmanagerAlert[] {
  return records.map((record) => {
    const link = consoleLink(consoleUrl, record.href);
    return {
      labels: {
        ...record.labels,
        alertname: record.labels.alertname ?? record.kind,
        severity: routeSeverity(record),
        warden_severity: record.severity,
        warden_alert_id: record.id,
        source: "warden-server",
        ...(record.tenantId === null ? {} : { tenant: record.tenantId }),
      },
      annotations: { summary: record.summary, description: record.detail },
      startsAt: new Date(record.startsAt).toISOString(),
      endsAt: new Date(
        record.status === "resolved" && record.endsAt !== null ? record.endsAt : now + 4 * repeatMs,
      ).toISOString(),
      ...(link === undefined ? {} : { generatorURL: link }),
    };
  });
}

/** One alert of the generic JSON body. */
export interface JsonAlert {
  readonly id: string;
  readonly status: AlertRecord["status"];
  readonly kind: AlertRecord["kind"];
  readonly severity: AlertRecord["severity"];
  readonly summary: string;
  readonly detail: string;
  readonly labels: Record<string, string>;
  readonly tenantId: string | null;
  readonly resource: string | null;
  readonly startsAt: string;
  readonly endsAt: string | null;
  readonly url: string | null;
}

/** The generic JSON body: `{source, version, sentAt, alerts: [...]}`. */
export function jsonBody(
  records: readonly AlertRecord[],
  now: number,
  consoleUrl: string | null,
): {
  source: "warden";
  version: 1;
  sentAt: string;
  alerts: JsonAlert[];
} {
  return {
    source: "warden",
    version: 1,
    sentAt: new Date(now).toISOString(),
    alerts: records.map((record) => ({
      id: record.id,
      status: record.status,
      kind: record.kind,
      severity: record.severity,
      summary: record.summary,
      detail: record.detail,
      labels: { ...record.labels },
      tenantId: record.tenantId,
      resource: record.resource,
      startsAt: new Date(record.startsAt).toISOString(),
      endsAt: record.endsAt === null ? null : new Date(record.endsAt).toISOString(),
      url: consoleLink(consoleUrl, record.href) ?? null,
    })),
  };
}
