import Link from "next/link";
import type { Alert } from "../lib/alert-view";
import { formatClock } from "../lib/format-time";

const TONE = { critical: "red", warning: "amber", info: "blue", ok: "green" } as const;

/** Alerts, worst first, each with a link to where to look. */
export function AlertList({
  alerts,
  limit,
  emptyText = "No active alerts.",
}: {
  readonly alerts: readonly Alert[];
  readonly limit?: number;
  /** Said when the list is empty. */
  readonly emptyText?: string;
}) {
  const shown = limit === undefined ? alerts : alerts.slice(0, limit);
  if (shown.length === 0)
    return (
      <p className="empty" data-testid="alert-list-empty">
        {emptyText}
      </p>
    );
  return (
    <ul className="alert-list" data-testid="alert-list">
      {shown.map((alert) => (
        <li key={alert.id} className="alert-item" data-kind={alert.kind}>
          <span className={`pill tone-${TONE[alert.severity]}`}>
            {alert.resolved ? "resolved" : alert.severity}
          </span>
          <div>
            <strong>{alert.title}</strong>
            <div className="muted">{alert.detail}</div>
          </div>
          <div className="actions">
            <span className="faint num">{formatClock(alert.atMs).slice(0, 8)}</span>
            <Link href={alert.href}>{alert.hrefLabel} →</Link>
          </div>
        </li>
      ))}
    </ul>
  );
}
