import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "@warden/server";

/** A resource the bench registers: lease policy fitting a cycle, no waiting on replicas. */
export interface BenchResource {
  readonly name: string;
  /** Lease an acquire gets by default and the longest it may ask for, in ms. */
  readonly leaseMs: number;
  /** First come, first served through the store's queue (decision 0009); default false. */
  readonly fair?: boolean;
  /** When set, a `semaphore` resource with this many permits per key; a mutex otherwise. */
  readonly semaphorePermits?: number;
  /** A read-write lock (`rwlock`) resource; a mutex otherwise. */
  readonly rwlock?: boolean;
}

/** The console's admin calls the bench needs, made as the bootstrap admin over HTTP. */
export interface AdminApi {
  /** Creates a tenant whose request quota is `requestsPerSecond`, with one API key. */
  createTenant(id: string, requestsPerSecond: number): Promise<{ readonly apiKey: string }>;
  createResource(tenantId: string, resource: BenchResource): Promise<void>;
  /** Pins the server's tier (audited); the bench pins `mysql` for sdk-mysql and `redis` around it. */
  pinTier(tier: "redis" | "mysql", reason: string): Promise<void>;
}

/**
 * Logs in as an operator the way the console does — the session cookie from Set-Cookie,
 * and an Origin the server accepts for cookie mutations (its own) — and returns a typed
 * tRPC client over HTTP.
 */
export async function loginAdmin(
  serverUrl: string,
  username: string,
  password: string,
): Promise<AdminApi> {
  const login = await fetch(`${serverUrl}/trpc/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: serverUrl },
    body: JSON.stringify({ username, password }),
  });
  const cookie = login.headers.get("set-cookie")?.split(";")[0];
  if (!login.ok || !cookie) {
    throw new Error(`admin login failed: HTTP ${login.status} ${await login.text()}`);
  }
  const api = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${serverUrl}/trpc`, headers: { cookie, origin: serverUrl } })],
  });
  return {
    async createTenant(id, requestsPerSecond) {
      await api.tenant.create.mutate({ id, name: `bench ${id}`, requestsPerSecond });
      const made = await api.tenant.createApiKey.mutate({ tenantId: id, name: "bench" });
      return { apiKey: made.key };
    },
    async createResource(tenantId, resource) {
      await api.resource.create.mutate({
        name: resource.name,
        tenantId,
        defaultLeaseMs: resource.leaseMs,
        maxLeaseMs: resource.leaseMs,
        maxRenewals: null,
        expectedHoldMs: null,
        degrade: true,
        localFallback: "deny",
        fair: resource.fair ?? false,
        ...(resource.semaphorePermits === undefined
          ? {}
          : { kind: "semaphore" as const, permits: resource.semaphorePermits }),
        ...(resource.rwlock ? { kind: "rwlock" as const } : {}),
        waitReplicas: 0,
        description: "pnpm bench",
      });
    },
    async pinTier(tier, reason) {
      await api.tier.override.mutate({ tier, reason });
    },
  };
}
