/** Console URLs, built in one place so that alerts, tables and tests agree. */

/** The detail page of a resource. */
export function resourceHref(name: string): string {
  return `/resources/${encodeURIComponent(name)}`;
}

/** The edit form of a resource. */
export function resourceEditHref(name: string): string {
  return `${resourceHref(name)}/edit`;
}

/** Filters of the events page that can be put in its URL. */
export interface EventLinkFilters {
  readonly fence?: string;
  readonly lockId?: string;
  readonly businessKey?: string;
  readonly resource?: string;
  readonly clientId?: string;
  readonly ownerId?: string;
  readonly type?: string;
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** The events page filtered by `filters`; empty values are left out. */
export function eventsHref(filters: EventLinkFilters = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters) as Array<
    [string, string | number | undefined]
  >) {
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  const query = params.toString();
  return query === "" ? "/events" : `/events?${query}`;
}
