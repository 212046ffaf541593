"use client";

import { useQuery } from "@tanstack/react-query";
import { tierPeriodKey, tierStyle, type TierStyle } from "../lib/tier-style";
import { useTRPC } from "../trpc/react";

/** Polling floor for everything live: the subscription is faster, this survives its loss. */
export const LIVE_REFRESH_MS = 2_000;

/** The current tier as the header, the banner and the tier page show it. */
export interface TierStatus {
  readonly loading: boolean;
  /** The server could not be asked (network, proxy or server down). */
  readonly unreachable: boolean;
  readonly tier: "redis" | "mysql" | "local" | null;
  readonly style: TierStyle | null;
  readonly since: number | null;
  readonly reason: string | null;
  readonly epoch: number | null;
  readonly forced: boolean;
  readonly decidedAlone: boolean;
  /** Names this stay in the tier, for the local-mode acknowledgement. */
  readonly periodKey: string | null;
}

/** `tier.state`, refreshed at least every 2 s. */
export function useTierStatus(): TierStatus {
  const trpc = useTRPC();
  const state = useQuery(
    trpc.tier.state.queryOptions(undefined, { refetchInterval: LIVE_REFRESH_MS }),
  );
  const data = state.data;
  return {
    loading: state.isPending,
    unreachable: state.isError,
    tier: data?.tier ?? null,
    style: data ? tierStyle(data.tier) : null,
    since: data?.since ?? null,
    reason: data?.reason ?? null,
    epoch: data?.epoch ?? null,
    forced: data?.forced ?? false,
    decidedAlone: data?.decidedAlone ?? false,
    periodKey: data ? tierPeriodKey(data) : null,
  };
}
