"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useDeferredValue } from "react";
import { useTRPC } from "../trpc/react";

/** The resources list: search as you type, retired ones on request. */
export function useResources(search: string, includeRetired: boolean) {
  const trpc = useTRPC();
  const deferred = useDeferredValue(search.trim());
  const list = useQuery(
    trpc.resource.list.queryOptions(
      { ...(deferred === "" ? {} : { search: deferred }), includeRetired, limit: 500 },
      { placeholderData: keepPreviousData, refetchInterval: 10_000 },
    ),
  );
  return {
    loading: list.isPending,
    error: list.error?.message ?? null,
    resources: list.data?.resources ?? [],
    more: list.data?.cursor !== null && list.data?.cursor !== undefined,
  };
}
