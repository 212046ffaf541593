import Link from "next/link";
import type { RwGrantRow, RwKeyRow } from "../lib/key-state";
import { formatClock } from "../lib/format-time";
import { eventsHref } from "../lib/links";

const COUNTDOWN_CLASS = { ok: "", low: "countdown-low", expired: "countdown-expired" } as const;
const STATE_TEXT = {
  write: { label: "writer holds it", tone: "tone-amber" },
  read: { label: "readers hold it", tone: "tone-blue" },
  free: { label: "free, writers waiting", tone: "tone-gray" },
} as const;

/** Props of {@link RwKeysTable}. */
export interface RwKeysTableProps {
  readonly rows: readonly RwKeyRow[];
  /** Recently seen keys looked at, for the empty state. */
  readonly keysRead: number;
  readonly canOperate: boolean;
  readonly onForceRelease: (key: RwKeyRow, grant: RwGrantRow) => void;
}

function Fence({ fence }: { readonly fence: string | null }) {
  return fence === null ? (
    <span className="pill tone-red">no fence</span>
  ) : (
    <Link href={eventsHref({ fence })} title="Audit events with this fence">
      {fence}
    </Link>
  );
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** What a key looks like now: who holds it, its read generation's fence, who waits. */
function KeySummary({ row }: { readonly row: RwKeyRow }) {
  const state = STATE_TEXT[row.state];
  return (
    <>
      <div className="mono">{row.businessKey}</div>
      <div style={{ marginTop: 4 }}>
        <span className={`pill ${state.tone}`} data-testid="rw-state">
          {state.label}
        </span>
      </div>
      <dl className="facts num" style={{ marginTop: 6 }}>
        <dt>readers</dt>
        <dd data-testid="rw-readers">{row.readers.length}</dd>
        <dt title="The fence every reader of the current read generation shares">read fence</dt>
        <dd className="fence" data-testid="rw-read-fence">
          {row.readFence === null ? "—" : <Fence fence={row.readFence} />}
        </dd>
        <dt title="Writers whose wait currently stops new readers (writer preference)">
          waiting writers
        </dt>
        <dd
          data-testid="rw-waiting-writers"
          className={row.waitingWriters > 0 ? "countdown-low" : undefined}
        >
          {row.waitingWriters}
        </dd>
      </dl>
    </>
  );
}

/**
 * A read-write lock's keys that are held or waited for: per key its state, readers count,
 * shared read fence and waiting writers, then one row for the writer or for each reader
 * (holder, fence, granted, renewals, countdown) with Force release.
 */
export function RwKeysTable({ rows, keysRead, canOperate, onForceRelease }: RwKeysTableProps) {
  if (rows.length === 0) {
    return (
      <p className="empty">
        Nobody reads or writes{keysRead > 0 ? ` the ${keysRead} recently seen keys` : " a key"}{" "}
        right now.
      </p>
    );
  }
  return (
    <div className="table-wrap">
      <table data-testid="rw-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Grant</th>
            <th scope="col">Holder (clientId / ownerId)</th>
            <th scope="col" className="num">
              Fence
            </th>
            <th scope="col" className="num">
              Granted
            </th>
            <th scope="col" className="num">
              Renewals
            </th>
            <th scope="col" className="num">
              Expires in
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.flatMap((row) => {
            const grants = row.writer === null ? row.readers : [row.writer, ...row.readers];
            const span = Math.max(1, grants.length);
            const summary = (
              <td rowSpan={span} data-testid="rw-key" style={{ verticalAlign: "top" }}>
                <KeySummary row={row} />
              </td>
            );
            if (grants.length === 0) {
              return [
                <tr key={row.businessKey} data-key={row.businessKey} className="row-group">
                  {summary}
                  <td colSpan={7} className="muted">
                    Nobody holds it; {plural(row.waitingWriters, "writer waits", "writers wait")}{" "}
                    (new readers are held back meanwhile).
                  </td>
                </tr>,
              ];
            }
            return grants.map((grant, index) => (
              <tr
                key={grant.lockId}
                data-key={row.businessKey}
                data-lock-id={grant.lockId}
                data-mode={grant.mode}
                className={index === 0 ? "row-group" : undefined}
              >
                {index === 0 ? summary : null}
                <td>
                  <span className={`pill ${grant.mode === "write" ? "tone-amber" : "tone-blue"}`}>
                    {grant.mode}
                  </span>
                </td>
                <td className="mono wrap-narrow">
                  {grant.clientId} / {grant.ownerId}
                </td>
                <td className="num fence">
                  <Fence fence={grant.fence} />
                </td>
                <td className="num">
                  {formatClock(grant.grantedAtMs).slice(0, 8)}
                  <div className="faint">{grant.age} ago</div>
                </td>
                <td className="num">{grant.renewals}</td>
                <td className={`num ${COUNTDOWN_CLASS[grant.countdown.state]}`}>
                  {grant.countdown.text}
                </td>
                <td>
                  <button
                    type="button"
                    className="button button-small button-danger"
                    disabled={!canOperate}
                    title={canOperate ? undefined : "Operators only"}
                    aria-label={`Force release ${grant.mode} grant of ${row.businessKey} held by ${grant.clientId} / ${grant.ownerId}`}
                    onClick={() => onForceRelease(row, grant)}
                  >
                    Force release
                  </button>
                </td>
              </tr>
            ));
          })}
        </tbody>
      </table>
    </div>
  );
}
