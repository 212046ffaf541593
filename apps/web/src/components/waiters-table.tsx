import type { WaiterRow } from "../hooks/use-resource-detail";
import { formatDuration } from "../lib/format-time";

/** Waiters per key in queue order (position 0 is next). */
export function WaitersTable({
  rows,
  fair,
}: {
  readonly rows: readonly WaiterRow[];
  readonly fair: boolean;
}) {
  if (rows.length === 0) return <p className="empty">No waiters.</p>;
  return (
    <div className="table-wrap">
      <p className="faint">
        {fair ? "Fair resource: served first come, first served." : "Not fair: any waiter may win."}
      </p>
      <table data-testid="waiters-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col" className="num">
              #
            </th>
            <th scope="col">Waiter (clientId / ownerId)</th>
            <th scope="col" className="num">
              Waiting
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.businessKey}:${row.position}:${row.clientId}:${row.ownerId}`}>
              <td className="mono">{row.businessKey}</td>
              <td className="num">{row.position + 1}</td>
              <td className="mono">
                {row.clientId} / {row.ownerId}
              </td>
              <td className="num">{formatDuration(row.waitedMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
