"use client";

import { AlertList } from "../../../components/alert-list";
import { useAlerts } from "../../../hooks/use-alerts";

/** Every firing alert, worst first, the last hour's resolved ones, and webhook health. */
export default function AlertsPage() {
  const alerts = useAlerts();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p>
            Evaluated by the server for the whole fleet: holds past 3× expected, refused renewals,
            stale-fence rejections, a degraded or local tier, audit spool backlog and SDK instances
            on local locks. The same alerts go to the configured webhooks.
          </p>
        </div>
      </div>
      {alerts.missing.length > 0 ? (
        <div className="notice tone-amber" role="alert">
          Could not load {alerts.missing.join(", ")}: this list may be incomplete.
        </div>
      ) : null}
      {!alerts.loading && alerts.missing.length === 0 && alerts.evaluator === null ? (
        <div className="notice tone-amber" role="alert" data-testid="no-evaluator">
          No server instance is evaluating alerts right now: this list may be out of date.
        </div>
      ) : null}
      {alerts.deliveryProblems.length > 0 ? (
        <div className="notice tone-red" role="alert" data-testid="alert-delivery-problems">
          Alert delivery failing:
          <ul>
            {alerts.deliveryProblems.map((problem) => (
              <li key={problem.webhook}>{problem.text}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <section className="card">
        {alerts.loading ? <p className="empty">Loading…</p> : <AlertList alerts={alerts.alerts} />}
      </section>
      {alerts.resolved.length > 0 ? (
        <section className="card">
          <h2>Resolved in the last hour</h2>
          <AlertList alerts={alerts.resolved} />
        </section>
      ) : null}
      {alerts.evaluator === null ? null : <p className="faint">Evaluated by {alerts.evaluator}.</p>}
    </>
  );
}
