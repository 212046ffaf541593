"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { alertRows, deliveryProblems, type Alert, type DeliveryProblem } from "../lib/alert-view";
import { useTRPC } from "../trpc/react";
import { LIVE_REFRESH_MS } from "./use-tier-status";

/** The alerts view model. */
export interface AlertsView {
  readonly loading: boolean;
  readonly alerts: readonly Alert[];
  /** Resolved within the last hour. */
  readonly resolved: readonly Alert[];
  readonly critical: number;
  /** Parts that could not be loaded, named, so a quiet list is never mistaken for a healthy one. */
  readonly missing: readonly string[];
  /** Webhooks whose last notification was lost after its retries. */
  readonly deliveryProblems: readonly DeliveryProblem[];
  /** The instance evaluating alerts for the fleet; null when none holds the lock. */
  readonly evaluator: string | null;
}

/**
 * The alerts the server's evaluator found for the fleet (`alert.list`): the same on every
 * instance, and the same conditions the webhooks are told about.
 */
export function useAlerts(): AlertsView {
  const trpc = useTRPC();
  const list = useQuery(
    trpc.alert.list.queryOptions(undefined, { refetchInterval: LIVE_REFRESH_MS }),
  );
  const rows = useMemo(() => alertRows(list.data?.alerts ?? []), [list.data]);
  const problems = useMemo(() => deliveryProblems(list.data?.deliveries ?? []), [list.data]);
  return {
    loading: list.isPending,
    alerts: rows.firing,
    resolved: rows.resolved,
    critical: rows.firing.filter((alert) => alert.severity === "critical").length,
    missing: list.isError ? ["alerts"] : [],
    deliveryProblems: problems,
    evaluator: list.data?.evaluator?.holder ?? null,
  };
}
