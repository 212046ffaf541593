"use client";

import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { useState } from "react";
import { HoldHistogramChart } from "../../../../components/charts/hold-histogram-chart";
import { PercentileChart } from "../../../../components/charts/percentile-chart";
import { RateChart } from "../../../../components/charts/rate-chart";
import { ConfirmDialog } from "../../../../components/confirm-dialog";
import { ForceReleaseDialog } from "../../../../components/force-release-dialog";
import { HoldersTable } from "../../../../components/holders-table";
import { KeyHistory } from "../../../../components/key-history";
import { KeyTimelineView } from "../../../../components/key-timeline-view";
import { LockDelayTable } from "../../../../components/lock-delay-table";
import { PermitsTable } from "../../../../components/permits-table";
import { PolicyFacts } from "../../../../components/policy-facts";
import { RwKeysTable } from "../../../../components/rw-keys-table";
import { WaitersTable } from "../../../../components/waiters-table";
import { useForceRelease, type ForceReleaseTarget } from "../../../../hooks/use-force-release";
import { useRequestRelease } from "../../../../hooks/use-request-release";
import { TIMELINE_WINDOWS_MS, useResourceDetail } from "../../../../hooks/use-resource-detail";
import { useRetireResource } from "../../../../hooks/use-retire-resource";
import { useNow } from "../../../../hooks/use-now";
import { useSession } from "../../../../hooks/use-session";
import { formatDuration } from "../../../../lib/format-time";
import { eventsHref, resourceEditHref } from "../../../../lib/links";

/** One resource: live holders and waiters, charts, the per-key timeline, force release. */
export default function ResourceDetailPage() {
  const { name: raw } = useParams<{ name: string }>();
  const name = decodeURIComponent(raw);
  const router = useRouter();
  const detail = useResourceDetail(name);
  const session = useSession();
  const [target, setTarget] = useState<ForceReleaseTarget | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const requested = useRequestRelease((asked) =>
    setNotice(`Release requested of ${asked.clientId} / ${asked.ownerId} (${asked.businessKey}).`),
  );
  const release = useForceRelease((removed) => {
    const what =
      target?.kind === "read" || target?.kind === "write" || target?.kind === "permit"
        ? `the ${target.kind} grant of `
        : "";
    setNotice(
      removed
        ? `Force-released ${what}${target?.businessKey ?? ""} (fence ${target?.fence ?? "none"}); the audit records you and your reason.`
        : "The grant had already ended; nothing was released.",
    );
    setTarget(null);
  });
  const [retireOpen, setRetireOpen] = useState(false);
  const retire = useRetireResource(() => router.push("/resources"));

  const resource = detail.resource;
  const now = useNow(1_000);
  const semaphore = resource?.kind === "semaphore";
  const rwlock = resource?.kind === "rwlock";
  return (
    <>
      <div className="page-head">
        <div>
          <h1>
            <span className="mono">{name}</span>
            {resource?.retiredAt ? <span className="pill tone-gray"> retired</span> : null}
          </h1>
          <p>{resource?.description || "Resource detail"}</p>
        </div>
        <div className="actions">
          <Link className="button" href={eventsHref({ resource: name })}>
            Events
          </Link>
          {session.canOperate && resource && resource.retiredAt === null ? (
            <>
              <Link className="button" href={resourceEditHref(name)}>
                Edit policy
              </Link>
              <button
                type="button"
                className="button button-danger"
                onClick={() => setRetireOpen(true)}
              >
                Retire
              </button>
            </>
          ) : null}
        </div>
      </div>
      {detail.error ? (
        <div className="notice tone-red" role="alert">
          {detail.error}
        </div>
      ) : null}
      {notice ? (
        <div className="notice tone-green" role="status" data-testid="release-notice">
          {notice}
        </div>
      ) : null}
      {semaphore && resource ? (
        <section className="card" aria-labelledby="permits-title">
          <h2 id="permits-title">
            Permits in use{" "}
            <span className="faint num">
              ({detail.permitKeys.length} key{detail.permitKeys.length === 1 ? "" : "s"},{" "}
              {resource.permits ?? "?"} per key)
            </span>
          </h2>
          {detail.keyStateError ? (
            <div className="notice tone-red" role="alert">
              {detail.keyStateError}
            </div>
          ) : null}
          <PermitsTable
            rows={detail.permitKeys}
            keysRead={detail.stateKeysRead}
            canOperate={session.canOperate}
            onForceRelease={(key, permit) => {
              release.reset();
              setNotice(null);
              setTarget({
                kind: "permit",
                resource: name,
                businessKey: key.businessKey,
                lockId: permit.lockId,
                fence: permit.fence,
                clientId: permit.clientId,
                ownerId: permit.ownerId,
              });
            }}
          />
          <p className="faint">
            Keys seen in the recent audit, read live (semaphore.inspect); a permit ends by release,
            at its lease, or by Force release of that one grant.
          </p>
        </section>
      ) : rwlock && resource ? (
        <section className="card" aria-labelledby="rw-title">
          <h2 id="rw-title">
            Readers and writers{" "}
            <span className="faint num">
              ({detail.rwKeys.length} key{detail.rwKeys.length === 1 ? "" : "s"}, writer preference{" "}
              {resource.writerPreference ? "on" : "off"})
            </span>
          </h2>
          {detail.keyStateError ? (
            <div className="notice tone-red" role="alert">
              {detail.keyStateError}
            </div>
          ) : null}
          <RwKeysTable
            rows={detail.rwKeys}
            keysRead={detail.stateKeysRead}
            canOperate={session.canOperate}
            onForceRelease={(key, grant) => {
              release.reset();
              setNotice(null);
              setTarget({
                kind: grant.mode,
                resource: name,
                businessKey: key.businessKey,
                lockId: grant.lockId,
                fence: grant.fence,
                clientId: grant.clientId,
                ownerId: grant.ownerId,
              });
            }}
          />
          <p className="faint">
            Keys seen in the recent audit, read live (rwlock.inspect): readers of one read
            generation share its fence; a writer&apos;s is larger than every fence before it.
            Waiting writers are those whose wait stops new readers (writer preference on); every
            waiting read or write is in Waiters below.
          </p>
        </section>
      ) : null}
      {semaphore ? null : (
        <section className="card" aria-labelledby="holders-title">
          <h2 id="holders-title">
            Live holders <span className="faint num">({detail.holders.length})</span>
          </h2>
          <LockDelayTable rows={detail.lockDelays} />
          {detail.holdersError ? (
            <div className="notice tone-red" role="alert">
              {detail.holdersError}
            </div>
          ) : null}
          <HoldersTable
            rows={detail.holders}
            showKind={rwlock}
            canOperate={session.canOperate}
            onForceRelease={(row) => {
              release.reset();
              setNotice(null);
              setTarget({
                kind: row.kind,
                resource: name,
                businessKey: row.businessKey,
                lockId: row.lockId,
                fence: row.fence,
                clientId: row.clientId,
                ownerId: row.ownerId,
              });
            }}
            onRequestRelease={(row) => {
              setNotice(null);
              requested.requestRelease({
                kind: row.kind,
                resource: name,
                businessKey: row.businessKey,
                lockId: row.lockId,
                fence: row.fence,
                clientId: row.clientId,
                ownerId: row.ownerId,
              });
            }}
          />
          {requested.error ? (
            <div className="notice tone-red" role="alert">
              {requested.error}
            </div>
          ) : null}
          {!session.canOperate ? (
            <p className="faint">Force release needs the operator role.</p>
          ) : null}
          <h2 style={{ marginTop: 16 }}>
            Waiters <span className="faint num">({detail.waiters.length})</span>
          </h2>
          <WaitersTable rows={detail.waiters} fair={detail.fair} />
        </section>
      )}
      <div
        className="grid"
        style={{ gridTemplateColumns: "minmax(0, 3fr) minmax(260px, 1fr)", alignItems: "start" }}
      >
        <section className="card" aria-labelledby="timeline-title">
          <div className="page-head" style={{ marginBottom: 8 }}>
            <h2 id="timeline-title">Who held the key when</h2>
            <div className="actions">
              <div className="field">
                <label htmlFor="timeline-window">Window</label>
                <select
                  id="timeline-window"
                  value={detail.timelineWindowMs}
                  onChange={(event) => detail.setTimelineWindowMs(Number(event.target.value))}
                >
                  {TIMELINE_WINDOWS_MS.map((ms) => (
                    <option key={ms} value={ms}>
                      last {ms / 60_000} min
                    </option>
                  ))}
                </select>
              </div>
              <div className="field" style={{ minWidth: 260 }}>
                <label htmlFor="timeline-key">Key</label>
                <select
                  id="timeline-key"
                  value={detail.timelineKey ?? ""}
                  onChange={(event) => detail.setTimelineKey(event.target.value)}
                >
                  {detail.keys.length === 0 ? <option value="">no keys seen</option> : null}
                  {detail.keys.map((key) => (
                    <option key={key} value={key}>
                      {key}
                    </option>
                  ))}
                </select>
              </div>
            </div>
          </div>
          <KeyTimelineView
            timeline={detail.timeline}
            fromMs={detail.timelineFromMs}
            toMs={detail.timelineToMs}
            kind={resource?.kind}
          />
          {resource?.kind === "mutex" ? (
            <section aria-labelledby="key-history-title" style={{ marginTop: 16 }}>
              <h2 id="key-history-title">
                Leader and terms
                {detail.timelineKey === null ? null : (
                  <>
                    {" "}
                    of <span className="mono">{detail.timelineKey}</span>
                  </>
                )}
              </h2>
              <KeyHistory
                resource={name}
                businessKey={detail.timelineKey}
                leader={detail.leader}
                lockDelay={detail.keyLockDelay}
                terms={detail.terms}
                nowMs={now}
                error={detail.keyStateError}
              />
            </section>
          ) : null}
        </section>
        <section className="card" aria-labelledby="policy-title">
          <h2 id="policy-title">Policy</h2>
          {resource ? <PolicyFacts resource={resource} /> : <p className="empty">Loading…</p>}
          {detail.holdSummary ? (
            <>
              <h3 style={{ marginTop: 14 }}>Hold times, last hour</h3>
              <dl className="facts num">
                <dt>holds</dt>
                <dd>{detail.holdSummary.samples}</dd>
                <dt>p50 / p99</dt>
                <dd>
                  {detail.holdSummary.p50Ms === null
                    ? "—"
                    : formatDuration(detail.holdSummary.p50Ms)}{" "}
                  /{" "}
                  {detail.holdSummary.p99Ms === null
                    ? "—"
                    : formatDuration(detail.holdSummary.p99Ms)}
                </dd>
                <dt>p99.9 / max</dt>
                <dd>
                  {detail.holdSummary.p999Ms === null
                    ? "—"
                    : formatDuration(detail.holdSummary.p999Ms)}{" "}
                  /{" "}
                  {detail.holdSummary.maxMs === null
                    ? "—"
                    : formatDuration(detail.holdSummary.maxMs)}
                </dd>
              </dl>
            </>
          ) : null}
        </section>
      </div>
      <div className="grid grid-3">
        <section className="card" aria-labelledby="rate-chart-title">
          <h2 id="rate-chart-title">Acquires per second</h2>
          <RateChart rows={detail.rate} height={200} />
        </section>
        <section className="card" aria-labelledby="latency-chart-title">
          <h2 id="latency-chart-title">Acquire latency</h2>
          <PercentileChart rows={detail.latency} label="Acquire latency percentiles" height={200} />
        </section>
        <section className="card" aria-labelledby="hold-chart-title">
          <h2 id="hold-chart-title">Hold time distribution</h2>
          <HoldHistogramChart rows={detail.holdHistogram} height={200} />
          <p className="faint">{detail.holdSamples} completed holds in the recent audit.</p>
        </section>
      </div>
      <section className="card" aria-labelledby="hold-pct-title">
        <h2 id="hold-pct-title">Hold time percentiles</h2>
        <PercentileChart rows={detail.holdPercentiles} label="Hold time percentiles" height={180} />
      </section>
      <ForceReleaseDialog
        target={target}
        pending={release.pending}
        error={release.error}
        onConfirm={(reason) => {
          if (target) release.forceRelease(target, reason);
        }}
        onClose={() => setTarget(null)}
      />
      <ConfirmDialog
        open={retireOpen}
        title={`Retire ${name}?`}
        confirmLabel="Retire"
        pending={retire.pending}
        error={retire.error}
        onConfirm={() => retire.retire(name)}
        onClose={() => {
          retire.reset();
          setRetireOpen(false);
        }}
      >
        <p>
          New acquires of <span className="mono">{name}</span> will fail with UnknownResourceError.
          The server refuses while the resource still has live locks.
        </p>
      </ConfirmDialog>
    </>
  );
}
