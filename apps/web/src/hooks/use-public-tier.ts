"use client";

import { useQuery } from "@tanstack/react-query";
import { parseReadiness, type Readiness } from "../lib/readyz";

/** Where the console's public readiness route lives (src/app/api/readyz/route.ts). */
const READYZ_PATH = "/api/readyz";

async function fetchReadiness(): Promise<Readiness & { reachable: boolean }> {
  const response = await fetch(READYZ_PATH, { cache: "no-store" });
  const body = (await response.json()) as unknown;
  const reachable =
    typeof body === "object" &&
    body !== null &&
    (body as { reachable?: unknown }).reachable === true;
  return { ...parseReadiness(body), reachable };
}

/**
 * The tier from the server's public `/readyz`, polled every 2 s while `enabled`. Not a
 * tRPC procedure, so this is the one hand-written query key in the console.
 */
export function usePublicTier(enabled = true) {
  return useQuery({
    queryKey: ["warden", "readyz"],
    queryFn: fetchReadiness,
    enabled,
    refetchInterval: 2_000,
    retry: false,
  });
}
