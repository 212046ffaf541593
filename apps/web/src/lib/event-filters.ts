import { eventTypeSchema } from "@warden/server/schemas";

/** An audit event type the search can filter on. */
export type EventType = (typeof eventTypeSchema.options)[number];

/** Every event type, for the filter's select. */
export const EVENT_TYPES: readonly EventType[] = eventTypeSchema.options;

/** The events search form; every field is optional text as typed. */
export interface EventFilterValues {
  fence: string;
  lockId: string;
  businessKey: string;
  resource: string;
  /** `clientId` or `clientId/ownerId`. */
  holder: string;
  type: string;
  /** `datetime-local` values (`YYYY-MM-DDTHH:MM`), the browser's time zone. */
  from: string;
  to: string;
}

/** The filters `event.search` takes (besides the cursor and page size). */
export interface EventSearchFilters {
  fence?: string;
  lockId?: string;
  businessKey?: string;
  resource?: string;
  clientId?: string;
  ownerId?: string;
  type?: EventType;
  fromMs?: number;
  toMs?: number;
}

/** An empty form. */
export const EMPTY_EVENT_FILTERS: Readonly<EventFilterValues> = Object.freeze({
  fence: "",
  lockId: "",
  businessKey: "",
  resource: "",
  holder: "",
  type: "",
  from: "",
  to: "",
});

const pad2 = (value: number) => String(value).padStart(2, "0");

/** A `datetime-local` value for `ms` in the browser's time zone. */
export function toDateTimeLocal(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}T${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

function fromDateTimeLocal(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const ms = new Date(text).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** The search input for the form; blank fields are left out, text is trimmed. */
export function searchFiltersOf(values: EventFilterValues): EventSearchFilters {
  const filters: EventSearchFilters = {};
  const text = (value: string) => {
    const trimmed = value.trim();
    return trimmed === "" ? undefined : trimmed;
  };
  const set = <K extends keyof EventSearchFilters>(
    key: K,
    value: EventSearchFilters[K] | undefined,
  ) => {
    if (value !== undefined) filters[key] = value;
  };
  set("fence", text(values.fence));
  set("lockId", text(values.lockId));
  set("businessKey", text(values.businessKey));
  set("resource", text(values.resource));
  const type = eventTypeSchema.safeParse(text(values.type));
  if (type.success) filters.type = type.data;
  const holder = text(values.holder);
  if (holder !== undefined) {
    const slash = holder.indexOf("/");
    set("clientId", text(slash < 0 ? holder : holder.slice(0, slash)));
    if (slash >= 0) set("ownerId", text(holder.slice(slash + 1)));
  }
  set("fromMs", fromDateTimeLocal(values.from));
  set("toMs", fromDateTimeLocal(values.to));
  return filters;
}

/** The form for the events page URL (`?fence=…&fromMs=…`), so searches can be linked and reloaded. */
export function valuesFromParams(params: URLSearchParams): EventFilterValues {
  const get = (name: string) => params.get(name) ?? "";
  const time = (name: string) => {
    const ms = Number(params.get(name));
    return params.has(name) && Number.isFinite(ms) ? toDateTimeLocal(ms) : "";
  };
  const clientId = get("clientId");
  const ownerId = get("ownerId");
  return {
    fence: get("fence"),
    lockId: get("lockId"),
    businessKey: get("businessKey"),
    resource: get("resource"),
    holder: ownerId === "" ? clientId : `${clientId}/${ownerId}`,
    type: get("type"),
    from: time("fromMs"),
    to: time("toMs"),
  };
}

/** URL parameters of a search, the inverse of {@link valuesFromParams}. */
export function paramsOf(filters: EventSearchFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters) as Array<
    [string, string | number | undefined]
  >) {
    if (value !== undefined) params.set(name, String(value));
  }
  return params;
}
