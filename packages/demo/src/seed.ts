import { TRPCClientError } from "@trpc/client";
import type { AdminClient } from "./admin-client.js";

/** The demo tenant. */
export const DEMO_TENANT = "demo";

/** Resources the demo workload uses, one per kind of policy the console shows. */
export const DEMO_RESOURCES = [
  {
    name: "order.settle",
    description: "Settles one order's payment; money moves, so fail-closed and fair.",
    defaultLeaseMs: 5_000,
    maxLeaseMs: 30_000,
    maxRenewals: 100,
    expectedHoldMs: 300,
    degrade: true,
    localFallback: "deny" as const,
    fair: true,
    waitReplicas: 0,
  },
  {
    name: "inventory.reserve",
    description: "Reserves stock for a cart; may fall back to in-process locks.",
    defaultLeaseMs: 3_000,
    maxLeaseMs: 10_000,
    maxRenewals: null,
    expectedHoldMs: 100,
    degrade: true,
    localFallback: "allow" as const,
    fair: false,
    waitReplicas: 0,
  },
  {
    name: "report.nightly",
    description: "The nightly report: one run at a time; sometimes runs long.",
    defaultLeaseMs: 10_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: 1_000,
    degrade: false,
    localFallback: "deny" as const,
    fair: false,
    waitReplicas: 0,
  },
];

/** Creates the tenant and resources (kept when they exist) and a fresh API key. */
export async function seedDemo(admin: AdminClient): Promise<{ apiKey: string }> {
  await ignoreConflict(admin.tenant.create.mutate({ id: DEMO_TENANT, name: "Demo shop" }));
  for (const resource of DEMO_RESOURCES) {
    await ignoreConflict(admin.resource.create.mutate({ ...resource, tenantId: DEMO_TENANT }));
  }
  const key = await admin.tenant.createApiKey.mutate({
    tenantId: DEMO_TENANT,
    name: `demo ${new Date().toISOString()}`,
  });
  return { apiKey: key.key };
}

async function ignoreConflict(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (
      error instanceof TRPCClientError &&
      (error.data as { code?: string } | undefined)?.code === "CONFLICT"
    )
      return;
    throw error;
  }
}
