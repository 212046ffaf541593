import { createHash, randomBytes } from "node:crypto";
import { createTRPCClient, httpLink } from "@trpc/client";
import { createPrismaClient } from "@warden/db";
import type { AppRouter } from "@warden/server";

/** The chaos tenant's credentials. */
export interface ChaosTenant {
  readonly id: string;
  readonly apiKey: string;
}

/**
 * Creates the tenant and an API key straight in Warden's database, the way the server's
 * CLI does (the key is stored as its SHA-256 only).
 */
export async function createChaosTenant(databaseUrl: string): Promise<ChaosTenant> {
  const prisma = createPrismaClient(databaseUrl);
  const id = "chaos";
  const apiKey = `wdn_${randomBytes(32).toString("base64url")}`;
  try {
    await prisma.tenant.create({
      data: { id, name: "chaos run", requestsPerSecond: 100_000 },
      select: { id: true },
    });
    await prisma.apiKey.create({
      data: {
        id: randomBytes(12).toString("hex"),
        tenantId: id,
        name: "chaos workers",
        prefix: apiKey.slice(0, 12),
        hash: createHash("sha256").update(apiKey, "utf8").digest("hex"),
        // It also registers the resources: a policy change needs the admin scope.
        scopes: "lock,admin",
      },
      select: { id: true },
    });
  } finally {
    await prisma.$disconnect();
  }
  return { id, apiKey };
}

/** The two resources of the run. */
export interface ChaosResources {
  /** The ledger's accounts: fail-closed (`deny`), may degrade to MySQL. */
  readonly ledger: string;
  /** A fail-open resource (`allow`) that proves local mode while both stores are down. */
  readonly allowLocal: string;
  /** The permit holders' semaphore (`deny`, `permits` per key). */
  readonly semaphore: string;
}

/**
 * Registers the resources through the server's API, as an operator's tenant would.
 * `waitReplicas` applies to all three: with it, a Redis grant is undone unless that many
 * replicas acknowledged it.
 */
export async function registerResources(
  serverUrl: string,
  apiKey: string,
  leaseMs: number,
  permits: number,
  waitReplicas: number,
): Promise<ChaosResources> {
  const admin = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${serverUrl}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": "chaos-admin" },
      }),
    ],
  });
  const policy = {
    defaultLeaseMs: leaseMs,
    maxLeaseMs: 10_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    fair: false,
    waitReplicas,
    // No lock-delay after an expiry: recovery is measured against lease + probe bound.
    lockDelayMs: 0,
  };
  const resources: ChaosResources = {
    ledger: "ledger:account",
    allowLocal: "scratch:local-ok",
    semaphore: "ledger:slots",
  };
  await admin.resource.create.mutate({
    ...policy,
    name: resources.ledger,
    localFallback: "deny",
    description: "chaos ledger accounts: a write needs a fence",
  });
  await admin.resource.create.mutate({
    ...policy,
    name: resources.allowLocal,
    localFallback: "allow",
    description: "chaos probe of local mode",
  });
  await admin.resource.create.mutate({
    ...policy,
    name: resources.semaphore,
    kind: "semaphore",
    permits,
    localFallback: "deny",
    description: "chaos ledger slots: at most `permits` holders write at once",
  });
  return resources;
}
