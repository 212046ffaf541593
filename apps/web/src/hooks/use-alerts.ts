"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { deriveAlerts, type Alert, type EventFact } from "../lib/derive-alerts";
import { useTRPC } from "../trpc/react";
import { useClients } from "./use-clients";
import { useNow } from "./use-now";
import { LIVE_REFRESH_MS } from "./use-tier-status";

const LOOKBACK_MS = 3_600_000;

/** The alerts view model. */
export interface AlertsView {
  readonly loading: boolean;
  readonly alerts: readonly Alert[];
  readonly critical: number;
  /** Parts that could not be loaded, named, so a quiet list is never mistaken for a healthy one. */
  readonly missing: readonly string[];
}

function eventFacts(
  events: ReadonlyArray<Omit<EventFact, "atMs"> & { at: number }> | undefined,
): EventFact[] {
  return (events ?? []).map((event) => ({ ...event, atMs: event.at }));
}

/**
 * Every active alert, derived in the browser from the overview (long holds, audit spool,
 * tier), the tier history, the last hour's stale-fence and expired events, and the SDK
 * instances on local locks.
 */
export function useAlerts(): AlertsView {
  const trpc = useTRPC();
  const now = useNow(1_000);
  // Rounded so the event queries keep one key for a minute instead of one per render.
  const fromMs = Math.floor(now / 60_000) * 60_000 - LOOKBACK_MS;
  const live = { refetchInterval: LIVE_REFRESH_MS };
  const overview = useQuery(trpc.stats.overview.queryOptions({ windowSec: 300 }, live));
  const history = useQuery(trpc.tier.history.queryOptions({ limit: 20 }, live));
  const stale = useQuery(
    trpc.event.search.queryOptions({ type: "stale-fence", fromMs, limit: 50 }, live),
  );
  const expired = useQuery(
    trpc.event.search.queryOptions({ type: "expired", fromMs, limit: 50 }, live),
  );
  const clients = useClients();

  const alerts = useMemo(() => {
    const data = overview.data;
    return deriveAlerts({
      nowMs: now,
      tier: data
        ? { tier: data.tier.tier, sinceMs: data.tier.since, reason: data.tier.reason }
        : null,
      transitions: (history.data ?? []).map((row) => ({ ...row, atMs: row.at })),
      expectedHoldMs: new Map(
        (data?.longHolds ?? []).map((hold) => [hold.resource, hold.expectedHoldMs]),
      ),
      holds: (data?.longHolds ?? []).map((hold) => ({
        resource: hold.resource,
        businessKey: hold.businessKey,
        lockId: hold.lockId,
        fence: hold.fence,
        clientId: hold.holder.clientId,
        ownerId: hold.holder.ownerId,
        grantedAtMs: hold.grantedAt,
      })),
      events: [...eventFacts(stale.data?.events), ...eventFacts(expired.data?.events)],
      audit: data ? { spooledEvents: data.audit.events, spoolFull: data.audit.spoolFull } : null,
      clients: clients.clients.map((client) => ({
        clientId: client.clientId,
        tier: client.tier,
        localSinceMs: client.localSince,
      })),
    });
  }, [now, overview.data, history.data, stale.data, expired.data, clients.clients]);

  const missing = [
    overview.isError ? "overview" : null,
    history.isError ? "tier history" : null,
    stale.isError || expired.isError ? "audit events" : null,
  ].filter((part): part is string => part !== null);

  return {
    loading: overview.isPending,
    alerts,
    critical: alerts.filter((alert) => alert.severity === "critical").length,
    missing,
  };
}
