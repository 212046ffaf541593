import type { PrismaClient } from "@warden/db";
import { hashSecret } from "./api-key.js";
import type { TenantPrincipal } from "./principal.js";
import { TtlCache } from "./ttl-cache.js";

/**
 * Resolves API keys to tenants. A lookup is cached for `cacheMs` (default 1 s) so the hot
 * path costs no query per call, yet a revoked key stops within that time everywhere and
 * at once here (revoke() drops the entry).
 */
export class ApiKeyAuth {
  private readonly cache: TtlCache<TenantPrincipal | null>;

  constructor(
    private readonly prisma: PrismaClient,
    cacheMs = 1_000,
  ) {
    this.cache = new TtlCache(cacheMs);
  }

  /** The tenant behind `key`, or null when it is unknown, revoked, or its tenant disabled. */
  async resolve(key: string): Promise<TenantPrincipal | null> {
    const hash = hashSecret(key);
    return this.cache.read(hash, () => this.load(hash));
  }

  private async load(hash: string): Promise<TenantPrincipal | null> {
    const row = await this.prisma.apiKey.findUnique({
      where: { hash },
      select: {
        id: true,
        revokedAt: true,
        tenant: { select: { id: true, requestsPerSecond: true, disabledAt: true } },
      },
    });
    const principal: TenantPrincipal | null =
      row && row.revokedAt === null && row.tenant.disabledAt === null
        ? {
            kind: "tenant",
            tenantId: row.tenant.id,
            keyId: row.id,
            requestsPerSecond: row.tenant.requestsPerSecond,
          }
        : null;
    return principal;
  }

  /** Revokes a key by id; returns false when there is no such live key. */
  async revoke(id: string, tenantId?: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { id, revokedAt: null, ...(tenantId === undefined ? {} : { tenantId }) },
      data: { revokedAt: new Date() },
    });
    // The cache is keyed by hash, which a revoke by id does not know: clear it all.
    this.cache.clear();
    return count > 0;
  }
}
