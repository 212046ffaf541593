import { QuotaExceededError } from "@warden/contract";
import type { PrismaClient } from "@warden/db";
import type { RateLimiter } from "../quota/rate-limiter.js";
import { hashSecret } from "./api-key.js";
import { CredentialWatch, type WatchedKind } from "./credential-watch.js";
import type { TenantPrincipal } from "./principal.js";
import { parseScopes } from "./scopes.js";
import { TtlCache } from "./ttl-cache.js";

/**
 * Resolves API keys to tenants. A lookup is cached for `cacheMs` (default 1 s) so the hot
 * path costs no query per call, yet a revoked key stops within that time everywhere and
 * at once here (revoke() drops the entry).
 */
export class ApiKeyAuth {
  private readonly cache: TtlCache<TenantPrincipal | null>;
  /** Streams and sockets open per key, ended when the key is revoked. */
  readonly streams: CredentialWatch;

  constructor(
    private readonly prisma: PrismaClient,
    cacheMs = 1_000,
    /** Throttles addresses presenting unknown keys (each costs a database lookup). */
    private readonly badKeys: {
      readonly limiter: RateLimiter;
      readonly perMinute: () => number;
    } | null = null,
  ) {
    this.cache = new TtlCache(cacheMs);
    this.streams = new CredentialWatch(async (hashes) => {
      const rows = await prisma.apiKey.findMany({
        where: { hash: { in: [...hashes] }, revokedAt: null, tenant: { disabledAt: null } },
        select: { hash: true },
      });
      return new Set(rows.map((row) => row.hash));
    });
  }

  /**
   * Registers a stream or socket opened with `key`: `end` runs when the key is revoked
   * (here at once, elsewhere within a second). Throws QUOTA_EXCEEDED past `max` of `kind`.
   */
  watch(key: string, kind: WatchedKind, max: number, end: () => void): () => void {
    return this.streams.watch(hashSecret(key), kind, max, end);
  }

  /**
   * The tenant behind `key`, or null when it is unknown, revoked, or its tenant disabled.
   * With `address`, unknown keys are throttled per client address: an address past
   * `perMinute` of them gets QUOTA_EXCEEDED for keys this instance has not cached, without
   * a database lookup (known, cached keys keep working).
   */
  async resolve(key: string, address?: string | null): Promise<TenantPrincipal | null> {
    const hash = hashSecret(key);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    // In-process callers (tests, tools) have no address and are not throttled.
    const guard = this.badKeys && address !== undefined && address !== null ? this.badKeys : null;
    const bucket = `badkey|a:${address ?? "unknown"}`;
    const rate = guard ? guard.perMinute() : 0;
    const rates = [{ ratePerSecond: rate / 60, burst: rate }];
    if (guard) {
      const waitMs = await guard.limiter.takeAll([bucket], rates, { peek: true });
      if (waitMs > 0) {
        throw new QuotaExceededError(waitMs, "too many unknown API keys from this address");
      }
    }
    const principal = await this.cache.read(hash, () => this.load(hash));
    if (!principal && guard) await guard.limiter.takeAll([bucket], rates);
    return principal;
  }

  private async load(hash: string): Promise<TenantPrincipal | null> {
    const row = await this.prisma.apiKey.findUnique({
      where: { hash },
      select: {
        id: true,
        name: true,
        revokedAt: true,
        scopes: true,
        resourcePrefix: true,
        tenant: { select: { id: true, requestsPerSecond: true, disabledAt: true } },
      },
    });
    const principal: TenantPrincipal | null =
      row && row.revokedAt === null && row.tenant.disabledAt === null
        ? {
            kind: "tenant",
            tenantId: row.tenant.id,
            keyId: row.id,
            keyName: row.name,
            scopes: parseScopes(row.scopes),
            resourcePrefix: row.resourcePrefix,
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
    if (count > 0) {
      const row = await this.prisma.apiKey.findUnique({ where: { id }, select: { hash: true } });
      if (row) this.streams.endAll(row.hash);
    }
    return count > 0;
  }
}
