"use client";

import { InstancesTable } from "../../../components/instances-table";
import { StatCard } from "../../../components/stat-card";
import { useInstances } from "../../../hooks/use-instances";
import { useNow } from "../../../hooks/use-now";

/** The server instances behind the console's URL, as the registry in Redis lists them. */
export default function InstancesPage() {
  const now = useNow(1_000);
  const view = useInstances(now);
  const model = view.model;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Instances</h1>
          <p>
            Every server instance announces itself every 2 s; one that stops is greyed, then leaves
            the list when its announcement expires.
          </p>
        </div>
      </div>
      {view.error ? (
        <div className="notice tone-red" role="alert">
          {view.error}
        </div>
      ) : null}
      {model?.warning ? (
        <div className="notice tone-amber" role="status" data-testid="instances-warning">
          {model.warning}
        </div>
      ) : null}
      <div className="stats">
        <StatCard label="Instances" value={model?.total ?? "—"} testId="instances-total" />
        <StatCard
          label="Stale"
          value={model?.stale ?? "—"}
          tone={model && model.stale > 0 ? "amber" : undefined}
          note="missed beats"
        />
        <StatCard
          label="Tier view differs"
          value={model?.mismatched ?? "—"}
          tone={model && model.mismatched > 0 ? "amber" : undefined}
          note="not the fleet's newest tier state"
        />
        <StatCard label="Connections" value={model?.connections ?? "—"} note="lock, tRPC, SSE" />
      </div>
      <section className="card" style={{ marginTop: 16 }} aria-labelledby="instances-title">
        <h2 id="instances-title">Fleet</h2>
        {view.loading ? <p className="empty">Loading…</p> : null}
        {model ? <InstancesTable rows={model.rows} /> : null}
      </section>
    </>
  );
}
