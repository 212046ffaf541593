import type { LockDelayRow } from "../lib/key-state";
import { formatClock } from "../lib/format-time";

/** Keys nobody holds and nobody may take yet: their lease ended involuntarily, the lock-delay runs. */
export function LockDelayTable({ rows }: { readonly rows: readonly LockDelayRow[] }) {
  if (rows.length === 0) return null;
  return (
    <div className="notice tone-amber" data-testid="lock-delays">
      <strong>
        {rows.length} key{rows.length === 1 ? "" : "s"} held back by lock-delay
      </strong>{" "}
      — their lease expired or was force-released; no grant until the delay ends, so a stalled
      holder&apos;s writes drain first.
      <ul className="plain-list">
        {rows.map((row) => (
          <li key={row.businessKey} data-key={row.businessKey}>
            <span className="mono">{row.businessKey}</span>: lock-delay until{" "}
            <span className="num">{formatClock(row.untilMs)}</span> (
            <span className="num">{row.countdown.text}</span> left)
          </li>
        ))}
      </ul>
    </div>
  );
}
