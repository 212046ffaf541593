import Link from "next/link";
import type { PermitKeyRow, PermitRow } from "../lib/key-state";
import { eventsHref } from "../lib/links";

const COUNTDOWN_CLASS = { ok: "", low: "countdown-low", expired: "countdown-expired" } as const;

/** A semaphore's keys with permits in use: how full each is, and who holds its permits. */
export function PermitsTable({
  rows,
  keysRead,
  canOperate,
  onForceRelease,
}: {
  readonly rows: readonly PermitKeyRow[];
  /** Recently seen keys looked at, for the empty state. */
  readonly keysRead: number;
  readonly canOperate: boolean;
  /** Force-releases one permit grant (its lockId); the key's other permits stay. */
  readonly onForceRelease: (key: PermitKeyRow, permit: PermitRow) => void;
}) {
  if (rows.length === 0) {
    return (
      <p className="empty">
        No permits in use{keysRead > 0 ? ` on the ${keysRead} recently seen keys` : ""}.
      </p>
    );
  }
  return (
    <div className="table-wrap">
      <table data-testid="permits-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">In use / total</th>
            <th scope="col">Holder (clientId / ownerId)</th>
            <th scope="col" className="num">
              Permits
            </th>
            <th scope="col" className="num">
              Fence
            </th>
            <th scope="col" className="num">
              Age
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
          {rows.flatMap((key) =>
            key.holders.map((permit, index) => (
              <tr
                key={permit.lockId}
                data-key={key.businessKey}
                data-lock-id={permit.lockId}
                className={index === 0 ? "row-group" : undefined}
              >
                {index === 0 ? (
                  <>
                    <td className="mono" rowSpan={key.holders.length}>
                      {key.businessKey}
                    </td>
                    <td rowSpan={key.holders.length} data-testid="permits-in-use">
                      <div className="meter-cell">
                        <span className="num">
                          {key.inUse} / {key.total}
                        </span>
                        <span
                          className={`meter${key.inUse >= key.total ? " meter-full" : ""}`}
                          role="meter"
                          aria-label={`${key.businessKey}: ${key.inUse} of ${key.total} permits in use`}
                          aria-valuemin={0}
                          aria-valuemax={key.total}
                          aria-valuenow={key.inUse}
                        >
                          <span style={{ width: `${key.fullPct}%` }} />
                        </span>
                      </div>
                    </td>
                  </>
                ) : null}
                <td className="mono wrap-narrow">
                  {permit.clientId} / {permit.ownerId}
                </td>
                <td className="num">{permit.permits}</td>
                <td className="num fence">
                  {permit.fence === null ? (
                    <span className="pill tone-red">no fence</span>
                  ) : (
                    <Link
                      href={eventsHref({ fence: permit.fence })}
                      title="Audit events with this fence"
                    >
                      {permit.fence}
                    </Link>
                  )}
                </td>
                <td className="num">{permit.age}</td>
                <td className={`num ${COUNTDOWN_CLASS[permit.countdown.state]}`}>
                  {permit.countdown.text}
                </td>
                <td>
                  <button
                    type="button"
                    className="button button-small button-danger"
                    disabled={!canOperate}
                    title={canOperate ? undefined : "Operators only"}
                    aria-label={`Force release permit grant of ${key.businessKey} held by ${permit.clientId} / ${permit.ownerId}`}
                    onClick={() => onForceRelease(key, permit)}
                  >
                    Force release
                  </button>
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}
