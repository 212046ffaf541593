import Link from "next/link";
import type { HolderRow } from "../lib/holder-rows";
import { eventsHref } from "../lib/links";

const COUNTDOWN_CLASS = { ok: "", low: "countdown-low", expired: "countdown-expired" } as const;

/** Props of {@link HoldersTable}. */
export interface HoldersTableProps {
  readonly rows: readonly HolderRow[];
  readonly canOperate: boolean;
  readonly onForceRelease: (row: HolderRow) => void;
  /** Asks the holder's SDK to release the lock (cooperative revocation; locks only). */
  readonly onRequestRelease?: (row: HolderRow) => void;
  /** Adds a Kind column (a read-write lock's `read` / `write` grants). */
  readonly showKind?: boolean;
}

/** Live holders: key, holder, fence, age, a countdown that ticks every second, renewals. */
export function HoldersTable({
  rows,
  canOperate,
  onForceRelease,
  onRequestRelease,
  showKind = false,
}: HoldersTableProps) {
  if (rows.length === 0)
    return <p className="empty">Nobody holds a key of this resource right now.</p>;
  return (
    <div className="table-wrap">
      <table data-testid="holders-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            {showKind ? <th scope="col">Kind</th> : null}
            <th scope="col">Holder (clientId / ownerId)</th>
            <th scope="col" className="num">
              Fence
            </th>
            <th scope="col">Tier</th>
            <th scope="col" className="num">
              Age
            </th>
            <th scope="col" className="num">
              Expires in
            </th>
            <th scope="col" className="num">
              Renewals
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.id}
              className={row.overdue ? "row-warn" : undefined}
              data-lock-id={row.lockId}
              data-kind={row.kind}
            >
              <td className="mono">{row.businessKey}</td>
              {showKind ? (
                <td data-testid="holder-kind">
                  <span className={`pill ${row.kind === "write" ? "tone-amber" : "tone-blue"}`}>
                    {row.kind}
                  </span>
                </td>
              ) : null}
              <td className="mono wrap-narrow">
                {row.clientId} / {row.ownerId}
                {row.reentry > 1 ? <span className="faint"> ×{row.reentry}</span> : null}
              </td>
              <td className="num fence" data-testid="holder-fence">
                {row.fence === null ? (
                  <span className="pill tone-red">no fence</span>
                ) : (
                  <Link
                    href={eventsHref({ fence: row.fence })}
                    title="Audit events with this fence"
                  >
                    {row.fence}
                  </Link>
                )}
              </td>
              <td>{row.tier}</td>
              <td className="num">
                {row.age}
                {row.overdue ? (
                  <div>
                    <span className="pill tone-amber">&gt;3× expected</span>
                  </div>
                ) : null}
              </td>
              <td
                className={`num ${COUNTDOWN_CLASS[row.countdown.state]}`}
                data-testid="holder-countdown"
              >
                {row.countdown.text}
              </td>
              <td className="num">{row.renewals}</td>
              <td>
                {onRequestRelease && row.kind === "lock" ? (
                  <button
                    type="button"
                    className="button button-small"
                    disabled={!canOperate}
                    title={
                      canOperate
                        ? "Asks the holder to release; the lock stays held until it does"
                        : "Operators only"
                    }
                    aria-label={`Request release of ${row.businessKey} from ${row.clientId}`}
                    onClick={() => onRequestRelease(row)}
                  >
                    Request release
                  </button>
                ) : null}{" "}
                <button
                  type="button"
                  className="button button-small button-danger"
                  disabled={!canOperate}
                  title={canOperate ? undefined : "Operators only"}
                  aria-label={`Force release ${row.kind === "lock" ? "" : `${row.kind} grant of `}${row.businessKey} held by ${row.clientId}`}
                  onClick={() => onForceRelease(row)}
                >
                  Force release
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
