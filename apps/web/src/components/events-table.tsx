import Link from "next/link";
import { formatDateTime, formatDuration } from "../lib/format-time";
import { eventsHref, resourceHref } from "../lib/links";

/** An audit event row as `event.search` returns it. */
export interface EventRow {
  readonly id: string;
  readonly type: string;
  readonly resource: string;
  readonly businessKey: string | null;
  readonly lockId: string | null;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  readonly tier: string | null;
  readonly leaseMs: number | null;
  readonly actor: string | null;
  readonly reason: string | null;
  readonly at: number;
  /** Refusals counted in the minute from `at` (a per-minute refusal row); renewals of a hold. */
  readonly count?: number | null;
}

const TYPE_TONE: Record<string, string> = {
  grant: "tone-green",
  release: "tone-blue",
  "force-release": "tone-red",
  "revoke-requested": "tone-amber",
  "stale-fence": "tone-red",
  expired: "tone-amber",
  refusal: "tone-gray",
  tier: "tone-amber",
  epoch: "tone-gray",
  "local-mode": "tone-red",
  // Permits and read-write grants, toned like a lock's steps.
  "permit-grant": "tone-green",
  "permit-release": "tone-blue",
  "permit-expired": "tone-amber",
  "permit-force-release": "tone-red",
  "rwlock-grant": "tone-green",
  "rwlock-release": "tone-blue",
  "rwlock-expired": "tone-amber",
  "rwlock-force-release": "tone-red",
  "renewal-refused": "tone-amber",
};

/** Audit events, newest first; fences and lockIds link to their own searches. */
export function EventsTable({
  events,
  stale = false,
}: {
  readonly events: readonly EventRow[];
  readonly stale?: boolean;
}) {
  if (events.length === 0) return <p className="empty">No events match.</p>;
  return (
    <div className="table-wrap">
      <table data-testid="events-table" aria-busy={stale}>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Resource / key</th>
            <th scope="col" className="num">
              Fence
            </th>
            <th scope="col">Holder</th>
            <th scope="col">Lock id</th>
            <th scope="col">Tier</th>
            <th scope="col">Who / why</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id} data-type={event.type}>
              <td className="tnum" title={formatDateTime(event.at)}>
                {formatDateTime(event.at).slice(5)}
              </td>
              <td>
                <span className={`pill ${TYPE_TONE[event.type] ?? "tone-gray"}`}>{event.type}</span>
                {event.count != null && event.count > 1 ? (
                  <span className="faint tnum" data-testid="event-count">
                    {" "}
                    ×{event.count}
                  </span>
                ) : null}
              </td>
              <td className="mono wrap-narrow">
                {event.resource === "*" ? (
                  "*"
                ) : (
                  <Link href={resourceHref(event.resource)}>{event.resource}</Link>
                )}
                {event.businessKey ? ` / ${event.businessKey}` : ""}
              </td>
              <td className="num fence">
                {event.fence ? (
                  <Link href={eventsHref({ fence: event.fence })}>{event.fence}</Link>
                ) : (
                  "—"
                )}
              </td>
              <td className="mono">
                {event.clientId ?? "—"}
                {event.ownerId ? <div className="faint">{event.ownerId}</div> : null}
              </td>
              <td className="mono">
                {event.lockId ? (
                  <Link href={eventsHref({ lockId: event.lockId })} title={event.lockId}>
                    {event.lockId.slice(0, 8)}…
                  </Link>
                ) : (
                  "—"
                )}
              </td>
              <td>{event.tier ?? "—"}</td>
              <td className="wrap">
                {event.actor ? <strong data-testid="event-actor">{event.actor}</strong> : null}
                {event.actor && event.reason ? ": " : null}
                {event.reason}
                {event.leaseMs !== null ? (
                  <span className="faint"> lease {formatDuration(event.leaseMs)}</span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
