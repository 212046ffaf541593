"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc/react";
import { LIVE_REFRESH_MS } from "./use-tier-status";

/** One connected SDK instance. */
export interface ClientRow {
  readonly clientId: string;
  readonly tenantId: string;
  readonly host: string;
  readonly pid: number;
  readonly sdkVersion: string;
  readonly tier: "redis" | "mysql" | "local";
  readonly lastSeenAt: number;
  readonly localSince: number | null;
}

/** Connected SDK instances (heartbeat within 60 s) and how many hold local locks. */
export interface ClientsView {
  readonly loading: boolean;
  readonly clients: readonly ClientRow[];
  readonly onLocal: number;
}

const TIERS = new Set(["redis", "mysql", "local"]);

/** `client.list`: SDK instances seen within the last minute. */
export function useClients(): ClientsView {
  const trpc = useTRPC();
  const list = useQuery(trpc.client.list.queryOptions({}, { refetchInterval: 5_000 }));
  const clients = (list.data ?? []).map((row) => ({
    ...row,
    tier: (TIERS.has(row.tier) ? row.tier : "redis") as ClientRow["tier"],
  }));
  return {
    loading: list.isPending,
    clients,
    onLocal: clients.filter((client) => client.tier === "local" || client.localSince !== null)
      .length,
  };
}

export { LIVE_REFRESH_MS };
