"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc/react";
import { LIVE_REFRESH_MS } from "./use-tier-status";

/** The tier page: history with reasons, and the operator override. */
export function useTierPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const history = useQuery(
    trpc.tier.history.queryOptions({ limit: 100 }, { refetchInterval: LIVE_REFRESH_MS }),
  );
  const override = useMutation(
    trpc.tier.override.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.tier.pathFilter()),
    }),
  );
  return {
    history: history.data ?? [],
    historyLoading: history.isPending,
    historyError: history.error?.message ?? null,
    /** Pins `tier`, or hands the decision back to the controller with `null`. */
    override: (tier: "redis" | "mysql" | "local" | null, reason: string, onDone: () => void) =>
      override.mutate({ tier, reason }, { onSuccess: onDone }),
    overridePending: override.isPending,
    overrideError: override.error?.message ?? null,
    resetOverride: override.reset,
  };
}
