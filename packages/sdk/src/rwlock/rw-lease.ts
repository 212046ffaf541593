import type { ClientContext } from "../client/client-context.js";
import { clientQuery } from "../client/client-query.js";
import type { HeldGrants } from "../client/held-grants.js";
import { HeldGrant, grantInput, type GrantFacts } from "../grant/held-grant.js";
import { RenewKindUnsentError } from "../remote/bulk-renewer.js";
import type { RemoteGrantRef } from "../remote/release-remote.js";

/** The two modes of a read-write lock grant. */
export type RwMode = "read" | "write";

/** What the server granted, as an {@link RwLease} starts from. */
export interface RwGrantFacts extends GrantFacts {
  readonly mode: RwMode;
}

/** The read-write grants a client holds, released by `warden.close()`. */
export type HeldRwLeases = HeldGrants<RwLease>;

/** Renews a grant once at the server; what its watchdog and the wait confirmation call. */
export async function renewRwGrant(
  ctx: ClientContext,
  grant: RemoteGrantRef,
  leaseMs: number | undefined,
): Promise<{ ttlMs: number; expiresAt: number }> {
  const reply = await clientQuery(
    ctx,
    (api, call) => api.rwlock.extend.mutate(grantInput(grant, leaseMs), call),
    "rwlock.extend",
    grant.resource,
  );
  return { ttlMs: reply.grant.ttlMs, expiresAt: reply.grant.expiresAt };
}

/**
 * A read or write grant of a read-write lock key held by this client (docs/decisions/0166),
 * kept alive by a watchdog exactly like a lock's lease (renewed at a third of the lease;
 * declared lost — `signal` aborts with a `LeaseLostError` — when no renewal was confirmed
 * before the lease may have run out, or when the server refuses a renewal).
 *
 * Fences: a write grant's fence is larger than every fence granted on the key before it;
 * readers granted with no write between them share one fence. A read fence gives no right
 * to write (many readers carry it at once): it tells a reader whether a write was accepted
 * since its read began — its result is current while the protected resource's stored fence
 * is at most its read fence.
 */
export class RwLease extends HeldGrant {
  readonly mode: RwMode;
  /** See the class comment; null on the local tier. */
  declare readonly fence: string | null;

  /** @internal Made by `RwLock.read` / `RwLock.write`; not for direct use. */
  constructor(ctx: ClientContext, set: HeldRwLeases, grant: RwGrantFacts) {
    super(ctx, set, grant);
    this.mode = grant.mode;
  }

  /** @internal */
  protected override get label(): string {
    return `${this.mode} lock`;
  }

  /**
   * One renewal: an item of the turn's bulk `renew` command, or a single `rwlock.extend`
   * call when the socket's server does not take read-write items there (it did not name
   * them; nothing was sent).
   */
  /** @internal */
  protected override async renewOnce(leaseMs: number | undefined) {
    try {
      return await this.ctx.remote.extend(this, leaseMs, "rwlock");
    } catch (error) {
      if (!(error instanceof RenewKindUnsentError)) throw error;
      return renewRwGrant(this.ctx, this, leaseMs);
    }
  }

  /** @internal */
  protected override releaseAtServer(): Promise<unknown> {
    return clientQuery(
      this.ctx,
      (api, call) => api.rwlock.release.mutate(grantInput(this), call),
      "rwlock.release",
      this.resource,
      true,
    );
  }
}
