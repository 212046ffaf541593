import Link from "next/link";
import type { ContendedRow } from "../hooks/use-overview";
import { formatDuration } from "../lib/format-time";
import { resourceHref } from "../lib/links";

/** Resources with the most refused or timed-out acquires in the window. */
export function ContendedTable({ rows }: { readonly rows: readonly ContendedRow[] }) {
  if (rows.length === 0) return <p className="empty">No acquires in the window.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Resource</th>
            <th scope="col" className="num">
              Acquires
            </th>
            <th scope="col" className="num">
              Refused / timed out
            </th>
            <th scope="col" className="num">
              p99 latency
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.resource}>
              <td>
                <Link href={resourceHref(row.resource)}>{row.resource}</Link>
              </td>
              <td className="num">{row.acquires}</td>
              <td className="num">{row.refused}</td>
              <td className="num">
                {row.latencyP99Ms === null ? "—" : formatDuration(row.latencyP99Ms)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
