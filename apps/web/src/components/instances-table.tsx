import type { InstanceRow } from "../lib/instance-rows";
import { formatDuration } from "../lib/format-time";
import { tierStyle } from "../lib/tier-style";

/** The fleet's server instances: stale ones greyed, a tier view off the fleet's highlighted. */
export function InstancesTable({ rows }: { readonly rows: readonly InstanceRow[] }) {
  if (rows.length === 0) return <p className="empty">No server instance announced itself.</p>;
  return (
    <div className="table-wrap">
      <table data-testid="instances-table">
        <thead>
          <tr>
            <th scope="col">Instance</th>
            <th scope="col" className="num">
              Uptime
            </th>
            <th scope="col" className="num">
              Connections
            </th>
            <th scope="col">Tier view</th>
            <th scope="col" className="num">
              Last seen
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.id}
              className={row.tierMismatch ? "row-warn" : undefined}
              style={row.stale ? { opacity: 0.5 } : undefined}
              data-stale={row.stale ? "true" : undefined}
              data-tier-mismatch={row.tierMismatch ? "true" : undefined}
            >
              <td className="wrap-narrow">
                <span className="mono">{row.name}</span>
                {row.self ? (
                  <>
                    {" "}
                    <span className="pill tone-blue">this one</span>
                  </>
                ) : null}
                {row.stale ? (
                  <>
                    {" "}
                    <span className="pill tone-gray">stale</span>
                  </>
                ) : null}
                <div className="faint">
                  {row.detail} · <span className="mono">{row.id}</span>
                </div>
              </td>
              <td className="num">{formatDuration(row.uptimeMs)}</td>
              <td className="num">
                {row.totalConnections}
                <div className="faint">
                  {row.connections.lockSockets} lock · {row.connections.trpcSockets} tRPC ·{" "}
                  {row.connections.sseStreams} SSE
                </div>
              </td>
              <td>
                <span className={`pill tone-${tierStyle(row.tier).tone}`}>{row.tier}</span>
                {row.tierMismatch ? (
                  <>
                    {" "}
                    <span className="pill tone-amber">differs from the fleet</span>
                  </>
                ) : null}
                <div className="faint">{row.tierDetail}</div>
              </td>
              <td className="num">{formatDuration(row.lastSeenAgoMs)} ago</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
