import Link from "next/link";
import { formatDuration } from "../lib/format-time";
import { resourceHref } from "../lib/links";

/** A resource row of the list. */
export interface ResourceListItem {
  readonly name: string;
  readonly tenantId: string;
  /** mutex, semaphore (with its permits per key), rwlock (with its writer preference), or a later kind. */
  readonly kind: string;
  readonly permits: number | null;
  /** rwlock only: whether a waiting writer stops new readers. */
  readonly writerPreference: boolean;
  readonly lockDelayMs: number;
  readonly defaultLeaseMs: number;
  readonly maxLeaseMs: number;
  readonly expectedHoldMs: number | null;
  readonly degrade: boolean;
  readonly localFallback: "deny" | "allow";
  readonly fair: boolean;
  readonly description: string;
  readonly retiredAt: number | null;
}

/** Registered resources with their policy at a glance. */
export function ResourcesTable({ resources }: { readonly resources: readonly ResourceListItem[] }) {
  if (resources.length === 0) return <p className="empty">No resources match.</p>;
  return (
    <div className="table-wrap">
      <table data-testid="resources-table">
        <thead>
          <tr>
            <th scope="col">Resource</th>
            <th scope="col">Tenant</th>
            <th scope="col">Kind</th>
            <th scope="col" className="num" title="default lease / longest lease">
              Lease / max
            </th>
            <th scope="col" className="num">
              Expected hold
            </th>
            <th scope="col">Degrade</th>
            <th scope="col">Local fallback</th>
            <th scope="col">Fair</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {resources.map((resource) => (
            <tr key={resource.name}>
              <td>
                <Link href={resourceHref(resource.name)} className="mono">
                  {resource.name}
                </Link>
                {resource.retiredAt !== null ? (
                  <span className="pill tone-gray"> retired</span>
                ) : null}
              </td>
              <td>{resource.tenantId}</td>
              <td data-testid="resource-kind">
                {resource.kind === "semaphore" ? (
                  <>
                    semaphore{" "}
                    <span className="faint num" title="permits per key">
                      ×{resource.permits ?? "?"}
                    </span>
                  </>
                ) : resource.kind === "rwlock" ? (
                  <>
                    rwlock{" "}
                    <span className="faint" title="writerPreference">
                      {resource.writerPreference ? "writers first" : "no writer preference"}
                    </span>
                  </>
                ) : (
                  resource.kind
                )}
                {resource.lockDelayMs > 0 ? (
                  <div className="faint num" title="lockDelayMs">
                    lock-delay {formatDuration(resource.lockDelayMs)}
                  </div>
                ) : null}
              </td>
              <td className="num">
                {formatDuration(resource.defaultLeaseMs)}{" "}
                <span className="faint">/ {formatDuration(resource.maxLeaseMs)}</span>
              </td>
              <td className="num">
                {resource.expectedHoldMs === null ? "—" : formatDuration(resource.expectedHoldMs)}
              </td>
              <td>{resource.degrade ? "to MySQL" : "no"}</td>
              <td>
                {resource.localFallback === "allow" ? (
                  <span className="pill tone-red">allow (unfenced)</span>
                ) : (
                  <span className="pill tone-gray">deny</span>
                )}
              </td>
              <td>{resource.fair ? "FIFO" : "no"}</td>
              <td className="muted wrap">{resource.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
