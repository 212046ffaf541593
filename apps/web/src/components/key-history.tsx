import Link from "next/link";
import type { LeaderView, LockDelayRow } from "../lib/key-state";
import { formatClock, formatDuration } from "../lib/format-time";
import { eventsHref } from "../lib/links";
import { formatWhen, type Term, type TermEnd } from "../lib/term-history";

const COUNTDOWN_CLASS = { ok: "", low: "countdown-low", expired: "countdown-expired" } as const;
/** Most terms listed; older ones are one click away in the audit search. */
const TERMS_SHOWN = 25;

const END_TEXT: Record<TermEnd, { readonly label: string; readonly tone: string }> = {
  leading: { label: "leading now", tone: "tone-green" },
  // The holder let go: a campaign's resign(), or the end of withLock.
  released: { label: "released", tone: "tone-blue" },
  "force-released": { label: "force-released", tone: "tone-red" },
  expired: { label: "expired (lease lost)", tone: "tone-amber" },
  unknown: { label: "end not in the audit yet", tone: "tone-gray" },
};

/** Props of {@link KeyHistory}. */
export interface KeyHistoryProps {
  readonly resource: string;
  readonly businessKey: string | null;
  readonly leader: LeaderView | null;
  readonly lockDelay: LockDelayRow | null;
  readonly terms: readonly Term[];
  readonly nowMs: number;
  readonly error: string | null;
}

function Ending({ term }: { readonly term: Term }) {
  const text = END_TEXT[term.end];
  return (
    <>
      <span className={`pill ${text.tone}`}>{text.label}</span>
      {term.endActor ? <span className="faint"> by {term.endActor}</span> : null}
      {term.endReason ? <span className="faint">: {term.endReason}</span> : null}
      {term.releaseRequests.map((request) => (
        <div key={request.atMs} className="faint">
          release requested by {request.actor ?? "?"} at {formatClock(request.atMs)}
        </div>
      ))}
    </>
  );
}

/**
 * One key's holder and its past holders. For leader election (`warden.campaign`) the
 * holder of the key's lock is the leader and its fence is the term, so this is who leads
 * now, since when and under which term, and the terms before it: who led, from when to
 * when, how each ended, and how long the key was leaderless in between.
 */
export function KeyHistory({
  resource,
  businessKey,
  leader,
  lockDelay,
  terms,
  nowMs,
  error,
}: KeyHistoryProps) {
  if (businessKey === null) return <p className="empty">Pick a key.</p>;
  const shown = terms.slice(0, TERMS_SHOWN);
  return (
    <div data-testid="key-history">
      {error ? (
        <div className="notice tone-red" role="alert">
          {error}
        </div>
      ) : null}
      <div className="leader-now" data-testid="current-leader">
        {leader ? (
          <dl className="facts num">
            <dt>leader (holder)</dt>
            <dd className="mono">
              {leader.clientId} / {leader.ownerId}
            </dd>
            <dt>term (fence)</dt>
            <dd data-testid="current-term">{leader.term ?? "none (local tier, unfenced)"}</dd>
            <dt>since</dt>
            <dd>
              {leader.sinceMs === null ? "—" : formatWhen(leader.sinceMs, nowMs)} ({leader.heldFor})
            </dd>
            <dt>lease expires in</dt>
            <dd className={COUNTDOWN_CLASS[leader.countdown.state]}>
              {leader.countdown.text}
              {leader.renewals !== null ? (
                <span className="faint"> · {leader.renewals} renewals</span>
              ) : null}
            </dd>
          </dl>
        ) : (
          <p>
            <strong>No leader:</strong> nobody holds <span className="mono">{businessKey}</span>
            {lockDelay ? (
              <>
                {" "}
                —{" "}
                <span className="pill tone-amber" data-testid="key-lock-delay">
                  lock-delay until {formatClock(lockDelay.untilMs)} ({lockDelay.countdown.text}{" "}
                  left)
                </span>{" "}
                <span className="faint">
                  the last lease ended without a release; no grant before then.
                </span>
              </>
            ) : (
              "."
            )}
          </p>
        )}
      </div>
      <h3 style={{ marginTop: 12 }}>Term history</h3>
      {shown.length === 0 ? (
        <p className="empty">No holds of this key in the audit.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="term-history">
            <thead>
              <tr>
                <th scope="col" className="num">
                  Term
                </th>
                <th scope="col" title="clientId / ownerId of the holder">
                  Leader
                </th>
                <th scope="col" className="num">
                  From → to (led for)
                </th>
                <th scope="col">How it ended</th>
                <th
                  scope="col"
                  className="num"
                  title="How long nobody held the key before this term"
                >
                  Gap
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((term) => (
                <tr key={term.lockId} data-term={term.term ?? ""} data-end={term.end}>
                  <td className="num fence">
                    {term.term === null ? (
                      <span className="pill tone-red">no fence</span>
                    ) : (
                      <Link
                        href={eventsHref({ fence: term.term })}
                        title="Audit events of this term"
                      >
                        {term.term}
                      </Link>
                    )}
                  </td>
                  <td className="mono wrap">
                    {term.clientId ?? "?"} / {term.ownerId ?? "?"}
                  </td>
                  <td className="num">
                    {term.fromMs === null ? "…" : formatWhen(term.fromMs, nowMs)} →{" "}
                    {term.toMs !== null
                      ? formatWhen(term.toMs, nowMs)
                      : term.end === "leading"
                        ? "now"
                        : "?"}
                    {term.fromMs === null ? null : (
                      <div className="faint" data-testid="term-led-for">
                        {formatDuration(
                          (term.toMs ?? (term.end === "leading" ? nowMs : term.fromMs)) -
                            term.fromMs,
                        )}
                      </div>
                    )}
                  </td>
                  <td className="wrap ending">
                    <Ending term={term} />
                  </td>
                  <td className="num">
                    {term.gapBeforeMs === null ? "—" : formatDuration(term.gapBeforeMs)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="faint">
        {terms.length > TERMS_SHOWN ? `Latest ${TERMS_SHOWN} of ${terms.length} terms read. ` : ""}
        Every hold of the key is a term; with <span className="mono">warden.campaign</span> the
        holder is the leader and its fence the term.{" "}
        <Link href={eventsHref({ resource, businessKey })}>All events of this key</Link>
      </p>
    </div>
  );
}
