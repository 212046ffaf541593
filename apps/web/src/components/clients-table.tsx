import type { ClientRow } from "../hooks/use-clients";
import { formatAge } from "../lib/format-time";
import { tierStyle } from "../lib/tier-style";

/** Connected SDK instances, those on local locks first. */
export function ClientsTable({
  clients,
  nowMs,
}: {
  readonly clients: readonly ClientRow[];
  readonly nowMs: number;
}) {
  if (clients.length === 0)
    return <p className="empty">No SDK instance sent a heartbeat in the last minute.</p>;
  const sorted = [...clients].sort(
    (a, b) => Number(b.localSince !== null) - Number(a.localSince !== null),
  );
  return (
    <div className="table-wrap">
      <table data-testid="clients-table">
        <thead>
          <tr>
            <th scope="col">Client</th>
            <th scope="col">Tier</th>
            <th scope="col" className="num">
              Last seen
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((client) => (
            <tr
              key={client.clientId}
              className={client.localSince !== null ? "row-warn" : undefined}
            >
              <td className="wrap-narrow">
                <span className="mono">{client.clientId}</span>
                <div className="faint">
                  {client.tenantId} · {client.host} / {client.pid} · SDK {client.sdkVersion}
                </div>
              </td>
              <td>
                <span className={`pill tone-${tierStyle(client.tier).tone}`}>{client.tier}</span>
                {client.localSince !== null ? (
                  <div className="faint">local for {formatAge(client.localSince, nowMs)}</div>
                ) : null}
              </td>
              <td className="num">{formatAge(client.lastSeenAt, nowMs)} ago</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
