"use client";

import { AlertList } from "../../../components/alert-list";
import { useAlerts } from "../../../hooks/use-alerts";

/** Every active alert, worst first. */
export default function AlertsPage() {
  const alerts = useAlerts();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p>
            Holds past 3× expected, lost leases, stale-fence rejections, tier changes, audit spool
            backlog and SDK instances on local locks.
          </p>
        </div>
      </div>
      {alerts.missing.length > 0 ? (
        <div className="notice tone-amber" role="alert">
          Could not load {alerts.missing.join(", ")}: this list may be incomplete.
        </div>
      ) : null}
      <section className="card">
        {alerts.loading ? <p className="empty">Loading…</p> : <AlertList alerts={alerts.alerts} />}
      </section>
    </>
  );
}
