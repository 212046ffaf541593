import { formatDateTime } from "../lib/format-time";
import { tierStyle, type Tier } from "../lib/tier-style";

/** A tier transition as `tier.history` returns it. */
export interface TierHistoryRow {
  readonly id: string;
  readonly fromTier: Tier;
  readonly toTier: Tier;
  readonly epoch: number;
  readonly reason: string;
  readonly actor: string;
  readonly instanceId: string;
  readonly at: number;
}

function TierPill({ tier }: { readonly tier: Tier }) {
  return <span className={`pill tone-${tierStyle(tier).tone}`}>{tier}</span>;
}

/** Tier changes, newest first, with who and why. */
export function TierHistoryTable({ rows }: { readonly rows: readonly TierHistoryRow[] }) {
  if (rows.length === 0) return <p className="empty">No tier changes recorded.</p>;
  return (
    <div className="table-wrap">
      <table data-testid="tier-history">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Change</th>
            <th scope="col" className="num">
              Epoch
            </th>
            <th scope="col">Reason</th>
            <th scope="col">By</th>
            <th scope="col">Instance</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td className="tnum">{formatDateTime(row.at)}</td>
              <td>
                <TierPill tier={row.fromTier} /> → <TierPill tier={row.toTier} />
              </td>
              <td className="num">{row.epoch}</td>
              <td className="wrap">{row.reason}</td>
              <td>{row.actor}</td>
              <td className="mono">{row.instanceId}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
