"use client";

import { useQuery } from "@tanstack/react-query";
import { instancesModel, type InstancesModel } from "../lib/instance-rows";
import { useTRPC } from "../trpc/react";
import { LIVE_REFRESH_MS } from "./use-tier-status";

/** The Instances page: the fleet's server instances, refreshed every 2 s. */
export interface InstancesView {
  readonly loading: boolean;
  readonly error: string | null;
  readonly model: InstancesModel | null;
}

/** `instance.list`, shaped at `nowMs` (the browser's clock, for ticking ages). */
export function useInstances(nowMs: number): InstancesView {
  const trpc = useTRPC();
  const list = useQuery(
    trpc.instance.list.queryOptions(undefined, { refetchInterval: LIVE_REFRESH_MS }),
  );
  return {
    loading: list.isPending,
    error: list.error?.message ?? null,
    model: list.data ? instancesModel(list.data, nowMs - list.dataUpdatedAt) : null,
  };
}
