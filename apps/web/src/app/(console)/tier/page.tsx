"use client";

import { StatCard } from "../../../components/stat-card";
import { TierHistoryTable } from "../../../components/tier-history-table";
import { TierOverrideForm } from "../../../components/tier-override-form";
import { useNow } from "../../../hooks/use-now";
import { useSession } from "../../../hooks/use-session";
import { useTierPage } from "../../../hooks/use-tier-page";
import { useTierStatus } from "../../../hooks/use-tier-status";
import { formatDateTime, formatDuration } from "../../../lib/format-time";

/** The tier: state, why, history, and the operator override. */
export default function TierPage() {
  const tier = useTierStatus();
  const page = useTierPage();
  const session = useSession();
  const now = useNow(1_000);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Tier</h1>
          <p>{tier.style?.meaning ?? "Where grants are made now."}</p>
        </div>
      </div>
      <div className="stats">
        <StatCard
          label="Current tier"
          value={tier.style?.label ?? "—"}
          tone={tier.style?.tone}
          testId="tier-current"
        />
        <StatCard
          label="Since"
          value={tier.since === null ? "—" : formatDuration(now - tier.since)}
          note={tier.since === null ? undefined : formatDateTime(tier.since)}
        />
        <StatCard label="Epoch" value={tier.epoch ?? "—"} note="high part of every fence" />
        <StatCard
          label="Decided by"
          value={tier.forced ? "operator" : "controller"}
          note={tier.decidedAlone ? "this instance alone (MySQL unreachable)" : undefined}
          tone={tier.decidedAlone ? "amber" : undefined}
        />
      </div>
      <section className="card" style={{ marginTop: 16 }}>
        <h2>Why</h2>
        <p data-testid="tier-reason">{tier.reason ?? "—"}</p>
      </section>
      <section className="card" aria-labelledby="override-title">
        <h2 id="override-title">Override</h2>
        <TierOverrideForm
          canOperate={session.canOperate}
          forced={tier.forced}
          pending={page.overridePending}
          error={page.overrideError}
          onOverride={page.override}
          onReset={page.resetOverride}
        />
      </section>
      <section className="card" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {page.historyError ? (
          <div className="notice tone-red" role="alert">
            {page.historyError}
          </div>
        ) : null}
        <TierHistoryTable rows={page.history} />
      </section>
    </>
  );
}
