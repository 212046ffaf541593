"use client";

import { useQuery } from "@tanstack/react-query";
import { tierPeriodKey, tierStyle, type TierStyle } from "../lib/tier-style";
import { useTRPC } from "../trpc/react";
import { usePublicTier } from "./use-public-tier";

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

/**
 * `tier.state`, refreshed at least every 2 s (and pushed by the live stream). While it
 * fails, the server's public `/readyz` still names the tier: a console that cannot read
 * its session must not hide that the tier is `local`.
 */
export function useTierStatus(): TierStatus {
  const trpc = useTRPC();
  const state = useQuery(
    trpc.tier.state.queryOptions(undefined, { refetchInterval: LIVE_REFRESH_MS }),
  );
  const publicTier = usePublicTier(state.isError);
  // Last known state stays (the stream keeps it current) unless /readyz contradicts it.
  const publicValue = state.isError ? (publicTier.data?.tier ?? null) : null;
  if (publicValue !== null && state.data?.tier !== publicValue) {
    return {
      loading: false,
      unreachable: false,
      tier: publicValue,
      style: tierStyle(publicValue),
      since: null,
      reason: "read from the server's /readyz: the console cannot read the tier state right now",
      epoch: null,
      forced: false,
      decidedAlone: false,
      periodKey: `readyz:${publicValue}`,
    };
  }
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
