import type { Tier } from "./tier-style";

/** What the server's public `/readyz` says: whether some tier can grant, and which. */
export interface Readiness {
  readonly ready: boolean;
  readonly tier: Tier | null;
}

const TIERS = new Set<string>(["redis", "mysql", "local"]);

/** Reads a `/readyz` body defensively: anything unexpected means "unknown", never a guess. */
export function parseReadiness(body: unknown): Readiness {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const tier =
    typeof record.tier === "string" && TIERS.has(record.tier) ? (record.tier as Tier) : null;
  return { ready: record.ready === true, tier };
}

/** The server origin behind a tRPC endpoint URL: `http://h:4000/trpc` → `http://h:4000`. */
export function serverOriginOf(apiUrl: string): string {
  return new URL(apiUrl).origin;
}
