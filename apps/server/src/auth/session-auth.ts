import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@warden/db";
import { hashSecret } from "./api-key.js";
import { CredentialWatch, type WatchedKind } from "./credential-watch.js";
import type { OperatorPrincipal } from "./principal.js";
import { TtlCache } from "./ttl-cache.js";

/** Name of the operator session cookie. */
export const SESSION_COOKIE = "warden_session";

/**
 * Operator sessions: a random token in an httpOnly cookie, stored as its SHA-256 in
 * OperatorSession. Lookups are cached for `cacheMs`; logout drops the entry at once.
 */
export class SessionAuth {
  private readonly cache: TtlCache<OperatorPrincipal | null>;
  /** Streams and sockets open per session, ended at logout or revocation. */
  readonly streams: CredentialWatch;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly ttlMs: number,
    cacheMs = 1_000,
  ) {
    this.cache = new TtlCache(cacheMs);
    this.streams = new CredentialWatch(async (ids) => {
      const rows = await prisma.operatorSession.findMany({
        where: {
          id: { in: [...ids] },
          revokedAt: null,
          expiresAt: { gt: new Date() },
          operator: { disabledAt: null },
        },
        select: { id: true },
      });
      return new Set(rows.map((row) => row.id));
    });
  }

  /**
   * Registers a stream or socket opened with session `token`: `end` runs at logout or
   * expiry (here at once, elsewhere within a second). Throws QUOTA_EXCEEDED past `max`.
   */
  watch(token: string, kind: WatchedKind, max: number, end: () => void): () => void {
    return this.streams.watch(hashSecret(token), kind, max, end);
  }

  /** Starts a session; returns the cookie token (shown to nobody else) and its expiry. */
  async create(operatorId: number, meta: { ip: string | null; userAgent: string | null }) {
    const token = randomBytes(32).toString("base64url");
    const expiresAt = new Date(Date.now() + this.ttlMs);
    await this.prisma.operatorSession.create({
      data: {
        id: hashSecret(token),
        operatorId,
        expiresAt,
        ip: meta.ip?.slice(0, 64) ?? null,
        userAgent: meta.userAgent?.slice(0, 300) ?? null,
      },
      select: { id: true },
    });
    return { token, expiresAt };
  }

  /** The operator behind a session token, or null when unknown, expired, revoked or disabled. */
  async resolve(token: string): Promise<OperatorPrincipal | null> {
    const id = hashSecret(token);
    return this.cache.read(id, () => this.load(id));
  }

  private async load(id: string): Promise<OperatorPrincipal | null> {
    const row = await this.prisma.operatorSession.findUnique({
      where: { id },
      select: {
        expiresAt: true,
        revokedAt: true,
        operator: { select: { id: true, username: true, role: true, disabledAt: true } },
      },
    });
    const live =
      row !== null &&
      row.revokedAt === null &&
      row.expiresAt.getTime() > Date.now() &&
      row.operator.disabledAt === null;
    const principal: OperatorPrincipal | null = live
      ? {
          kind: "operator",
          operatorId: row.operator.id,
          username: row.operator.username,
          role: row.operator.role,
        }
      : null;
    return principal;
  }

  /** Ends a session; idempotent. */
  async revoke(token: string): Promise<void> {
    const id = hashSecret(token);
    this.cache.delete(id);
    await this.prisma.operatorSession.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    this.streams.endAll(id);
  }

  /** Deletes sessions that expired more than a day ago; returns how many. */
  async prune(): Promise<number> {
    const { count } = await this.prisma.operatorSession.deleteMany({
      where: { expiresAt: { lt: new Date(Date.now() - 86_400_000) } },
    });
    return count;
  }
}
