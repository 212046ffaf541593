import { LeaseLostError, NotHolderError, type Tier } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { clientQuery } from "../client/client-query.js";
import type { HeldGrants } from "../client/held-grants.js";
import { LazyAbort } from "../lease/lazy-abort.js";
import { RenewKindUnsentError } from "../remote/bulk-renewer.js";
import { Watchdog } from "../lease/watchdog.js";

/** The two modes of a read-write lock grant. */
export type RwMode = "read" | "write";

/** What the server granted, as an {@link RwLease} starts from. */
export interface RwGrantFacts {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  readonly mode: RwMode;
  readonly fence: string | null;
  readonly tier: Tier;
  readonly ttlMs: number;
  readonly expiresAt: number;
  readonly maxRenewals: number | null;
  /** Lease asked for at each renewal; undefined = the resource's default. */
  readonly leaseMs: number | undefined;
  /** Monotonic instant the acquire (or its confirming renewal) was sent. */
  readonly sentAt: number;
}

/** The read-write grants a client holds, released by `warden.close()`. */
export type HeldRwLeases = HeldGrants<RwLease>;

/** Renews a grant once at the server; what its watchdog and the wait confirmation call. */
export async function renewRwGrant(
  ctx: ClientContext,
  grant: {
    readonly resource: string;
    readonly businessKey: string;
    readonly lockId: string;
    readonly tier: Tier;
  },
  leaseMs: number | undefined,
): Promise<{ ttlMs: number; expiresAt: number }> {
  const reply = await clientQuery(
    ctx,
    (api, call) =>
      api.rwlock.extend.mutate(
        {
          resource: grant.resource,
          businessKey: grant.businessKey,
          lockId: grant.lockId,
          tier: grant.tier,
          ...(leaseMs === undefined ? {} : { leaseMs }),
        },
        call,
      ),
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
export class RwLease {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  readonly mode: RwMode;
  /** See the class comment; null on the local tier. */
  readonly fence: string | null;
  /** The tier that granted it (release goes there). */
  readonly tier: Tier;
  /** Latest expiry the server reported, ms since the Unix epoch (server clock). */
  expiresAt: number;
  private readonly lost = new LazyAbort();
  private readonly watchdog: Watchdog;
  private released: Promise<void> | null = null;

  /** @internal Made by `RwLock.read` / `RwLock.write`; not for direct use. */
  constructor(
    private readonly ctx: ClientContext,
    private readonly set: HeldRwLeases,
    grant: RwGrantFacts,
  ) {
    this.resource = grant.resource;
    this.businessKey = grant.businessKey;
    this.ownerId = grant.ownerId;
    this.lockId = grant.lockId;
    this.mode = grant.mode;
    this.fence = grant.fence;
    this.tier = grant.tier;
    this.expiresAt = grant.expiresAt;
    this.watchdog = new Watchdog(
      {
        lockId: grant.lockId,
        leaseMs: grant.leaseMs,
        nominalLeaseMs: grant.leaseMs ?? grant.ttlMs,
        safetyMarginMs: ctx.options.safetyMarginMs,
        maxRenewals: grant.maxRenewals,
      },
      {
        renew: async (leaseMs) => {
          const renewed = await this.renewOnce(leaseMs);
          this.expiresAt = renewed.expiresAt;
          return { ttlMs: renewed.ttlMs };
        },
        onLost: (error) => {
          this.set.delete(this);
          this.lost.abort(error);
        },
        // The client's renewal clock: a grant's renewals leave in the same turn as the
        // client's other due renewals, in one bulk `renew` command (docs/decisions/0211).
        clock: ctx.remote.clock,
      },
    );
    this.set.add(this);
    this.watchdog.start(grant.sentAt, grant.ttlMs);
  }

  /**
   * One renewal: an item of the turn's bulk `renew` command, or a single `rwlock.extend`
   * call when the socket's server does not take read-write items there (it did not name
   * them; nothing was sent).
   */
  private async renewOnce(leaseMs: number | undefined) {
    try {
      return await this.ctx.remote.extend(this, leaseMs, "rwlock");
    } catch (error) {
      if (!(error instanceof RenewKindUnsentError)) throw error;
      return renewRwGrant(this.ctx, this, leaseMs);
    }
  }

  /** Aborts (reason: `LeaseLostError`) once the grant may be lost; stop the protected work then. */
  get signal(): AbortSignal {
    return this.lost.signal;
  }

  /** True until released or lost. */
  get held(): boolean {
    return this.released === null && !this.lost.aborted;
  }

  /**
   * Renews now to `leaseMs` (default: the lease asked for at the acquire).
   *
   * @throws LeaseLostError - the grant is released or lost.
   */
  async extend(leaseMs?: number): Promise<void> {
    if (!this.held) throw new LeaseLostError(this.lockId, `the ${this.mode} lock is not held`);
    await this.watchdog.renewNow(leaseMs);
  }

  /**
   * Stops renewing, then releases at the server. Idempotent; never rejects: a grant the
   * server no longer has (expired) is already free, and a release that cannot be sent is
   * reported to `onError` and the grant runs out with its lease.
   */
  release(): Promise<void> {
    this.released ??= (async () => {
      this.set.delete(this);
      await this.watchdog.stop();
      if (this.lost.aborted) return;
      try {
        await clientQuery(
          this.ctx,
          (api, call) =>
            api.rwlock.release.mutate(
              {
                resource: this.resource,
                businessKey: this.businessKey,
                lockId: this.lockId,
                tier: this.tier,
              },
              call,
            ),
          "rwlock.release",
          this.resource,
        );
      } catch (error) {
        if (!(error instanceof NotHolderError)) {
          this.ctx.options.onError(error, `releasing ${this.mode} lock ${this.lockId}`);
        }
      }
    })();
    return this.released;
  }

  /** `await using lease = await warden.rwLock(r, k).read()` releases it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
