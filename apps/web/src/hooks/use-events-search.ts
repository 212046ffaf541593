"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import {
  paramsOf,
  searchFiltersOf,
  valuesFromParams,
  type EventFilterValues,
  type EventSearchFilters,
} from "../lib/event-filters";
import { useTRPC } from "../trpc/react";
import { LIVE_REFRESH_MS } from "./use-tier-status";

/** Events per page. */
export const EVENTS_PAGE_SIZE = 50;

/**
 * The events search: the form, the applied filters in the URL (so a search can be shared
 * and survives reload), and paging by the server's cursor. The first page refreshes
 * every 2 s; older pages stay put while read.
 */
export function useEventsSearch() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const applied: EventSearchFilters = useMemo(
    () => searchFiltersOf(valuesFromParams(params)),
    [params],
  );
  const [form, setForm] = useState<EventFilterValues>(() => valuesFromParams(params));
  // Cursors of the pages before the current one; [] on the first page.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const query = useQuery(
    trpc.event.search.queryOptions(
      { ...applied, limit: EVENTS_PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) },
      {
        placeholderData: keepPreviousData,
        refetchInterval: cursor === undefined ? LIVE_REFRESH_MS : false,
      },
    ),
  );
  const apply = (values: EventFilterValues) => {
    setCursors([]);
    const search = paramsOf(searchFiltersOf(values)).toString();
    router.replace(search === "" ? pathname : `${pathname}?${search}`);
  };
  return {
    form,
    setField: (field: keyof EventFilterValues, value: string) =>
      setForm((previous) => ({ ...previous, [field]: value })),
    search: () => apply(form),
    clear: () => {
      const empty = valuesFromParams(new URLSearchParams());
      setForm(empty);
      apply(empty);
    },
    events: query.data?.events ?? [],
    loading: query.isPending,
    fetching: query.isFetching,
    /** The rows are the previous search's while the new one loads. */
    stale: query.isPlaceholderData,
    error: query.error?.message ?? null,
    page: cursors.length + 1,
    hasOlder: (query.data?.cursor ?? null) !== null,
    older: () => {
      const next = query.data?.cursor;
      if (next) setCursors((previous) => [...previous, next]);
    },
    newer: () => setCursors((previous) => previous.slice(0, -1)),
    filtered: Object.keys(applied).length > 0,
  };
}
