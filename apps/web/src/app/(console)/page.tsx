"use client";

import Link from "next/link";
import { AlertList } from "../../components/alert-list";
import { RateChart } from "../../components/charts/rate-chart";
import { ClientsTable } from "../../components/clients-table";
import { ContendedTable } from "../../components/contended-table";
import { SplitBar } from "../../components/split-bar";
import { StatCard } from "../../components/stat-card";
import { useAlerts } from "../../hooks/use-alerts";
import { useClients } from "../../hooks/use-clients";
import { useNow } from "../../hooks/use-now";
import { useOverview } from "../../hooks/use-overview";
import { useTierStatus } from "../../hooks/use-tier-status";
import { formatDuration } from "../../lib/format-time";

/** Overview: is anything on fire, and where. */
export default function OverviewPage() {
  const overview = useOverview();
  const tier = useTierStatus();
  const alerts = useAlerts();
  const clients = useClients();
  const now = useNow(1_000);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p>
            Last {overview.windowSec / 60} minutes
            {overview.instanceId ? ` · server instance ${overview.instanceId}` : ""}
          </p>
        </div>
      </div>
      {overview.error ? (
        <div className="notice tone-red" role="alert">
          {overview.error}
        </div>
      ) : null}
      <div className="stats">
        <StatCard
          label="Tier"
          value={tier.style?.label ?? "—"}
          note={tier.style?.meaning}
          tone={tier.style?.tone}
          testId="stat-tier"
        />
        <StatCard label="Live locks" value={overview.liveLocks ?? "—"} testId="stat-live-locks" />
        <StatCard label="Waiters" value={overview.waiters ?? "—"} />
        <StatCard
          label="Acquire rate"
          value={overview.ratePerSec === null ? "—" : `${overview.ratePerSec}/s`}
          note="last minute"
        />
        <StatCard
          label="p99 acquire latency"
          value={overview.p99LatencyMs === null ? "—" : formatDuration(overview.p99LatencyMs)}
          note="last minute"
        />
        <StatCard
          label="SDK instances"
          value={clients.clients.length}
          note={`${clients.onLocal} on local locks`}
          tone={clients.onLocal > 0 ? "red" : undefined}
        />
      </div>
      <div className="grid grid-2">
        <section className="card" aria-labelledby="rate-title">
          <h2 id="rate-title">Acquires per second</h2>
          <RateChart rows={overview.rateRows} />
          {overview.split && overview.split.total > 0 ? <SplitBar split={overview.split} /> : null}
        </section>
        <section className="card" aria-labelledby="alerts-title">
          <div className="page-head" style={{ marginBottom: 4 }}>
            <h2 id="alerts-title">Active alerts</h2>
            <Link href="/alerts">all alerts →</Link>
          </div>
          <AlertList alerts={alerts.alerts} limit={6} />
        </section>
      </div>
      <div className="grid grid-2">
        <section className="card" aria-labelledby="contended-title">
          <h2 id="contended-title">Top contended resources</h2>
          <ContendedTable rows={overview.topContended} />
        </section>
        <section className="card" aria-labelledby="clients-title">
          <h2 id="clients-title">Connected SDK instances</h2>
          <ClientsTable clients={clients.clients} nowMs={now} />
        </section>
      </div>
    </>
  );
}
