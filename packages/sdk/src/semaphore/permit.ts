import { InvalidArgumentError, LeaseLostError, NotHolderError, type Tier } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { clientQuery } from "../client/client-query.js";
import type { HeldGrants } from "../client/held-grants.js";
import { LazyAbort } from "../lease/lazy-abort.js";
import { Watchdog } from "../lease/watchdog.js";

/** What the server granted, as a {@link Permit} starts from. */
export interface PermitGrantFacts {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly permits: number;
  readonly tier: Tier;
  readonly ttlMs: number;
  readonly expiresAt: number;
  readonly maxRenewals: number | null;
  /** Lease asked for at each renewal; undefined = the resource's default. */
  readonly leaseMs: number | undefined;
  /** Monotonic instant the acquire was sent. */
  readonly sentAt: number;
}

/** The permits a client holds, released by `warden.close()`. */
export type HeldPermits = HeldGrants<Permit>;

/**
 * A semaphore permit grant held by this client (docs/decisions/0161): `permits` of the
 * key's total, with its own lockId and fence, kept alive by a watchdog exactly like a
 * lock's lease (renewed at a third of the lease, on the client's renewal clock; declared
 * lost — `signal` aborts with a `LeaseLostError` — when no renewal was confirmed before
 * the lease may have run out, when the server refuses a renewal, or at the resource's
 * maxRenewals, which the server enforces too).
 */
export class Permit {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  /** Larger than every earlier grant's of the key (any permit, any tier); null on the local tier. */
  readonly fence: string | null;
  /** Permits this grant holds. */
  readonly permits: number;
  /** The tier that granted it (release goes there). */
  readonly tier: Tier;
  /** Latest expiry the server reported, ms since the Unix epoch (server clock). */
  expiresAt: number;
  private readonly lost = new LazyAbort();
  private readonly watchdog: Watchdog;
  private released: Promise<void> | null = null;
  /** Renewed in the bulk `renew` command until a server refuses permit items there. */
  private bulk = true;

  /** @internal Made by `Semaphore.acquire`; not for direct use. */
  constructor(
    private readonly ctx: ClientContext,
    private readonly set: HeldPermits,
    grant: PermitGrantFacts,
  ) {
    this.resource = grant.resource;
    this.businessKey = grant.businessKey;
    this.ownerId = grant.ownerId;
    this.lockId = grant.lockId;
    this.fence = grant.fence;
    this.permits = grant.permits;
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
          if (this.bulk) {
            try {
              // With the client's other due renewals, in one bulk `renew` command.
              const renewed = await ctx.remote.extend(this, leaseMs, "permit");
              this.expiresAt = renewed.expiresAt;
              return { ttlMs: renewed.ttlMs };
            } catch (error) {
              // A server that does not know permit items takes them for locks and refuses
              // them on `kind`, changing nothing: renew by call from then on.
              if (!(error instanceof InvalidArgumentError && error.field === "kind")) throw error;
              this.bulk = false;
            }
          }
          const reply = await clientQuery(
            ctx,
            (api, call) =>
              api.semaphore.extend.mutate(
                {
                  resource: this.resource,
                  businessKey: this.businessKey,
                  lockId: this.lockId,
                  tier: this.tier,
                  ...(leaseMs === undefined ? {} : { leaseMs }),
                },
                call,
              ),
            "semaphore.extend",
            this.resource,
          );
          this.expiresAt = reply.permit.expiresAt;
          return { ttlMs: reply.permit.ttlMs };
        },
        onLost: (error) => {
          this.set.delete(this);
          this.lost.abort(error);
        },
        // The client's renewal clock: a permit's renewals leave in the same turn as the
        // client's other due renewals, in one bulk `renew` command (docs/decisions/0162).
        clock: ctx.remote.clock,
      },
    );
    this.set.add(this);
    this.watchdog.start(grant.sentAt, grant.ttlMs);
  }

  /** Aborts (reason: `LeaseLostError`) once the permit may be lost; stop the protected work then. */
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
   * @throws LeaseLostError - the permit is released or lost.
   */
  async extend(leaseMs?: number): Promise<void> {
    if (!this.held) throw new LeaseLostError(this.lockId, "the permit is not held");
    await this.watchdog.renewNow(leaseMs);
  }

  /**
   * Stops renewing, then releases at the server. Idempotent; never rejects: a permit the
   * server no longer has (expired) is already free, and a release that cannot be sent is
   * reported to `onError` and the permit runs out with its lease.
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
            api.semaphore.release.mutate(
              {
                resource: this.resource,
                businessKey: this.businessKey,
                lockId: this.lockId,
                tier: this.tier,
              },
              call,
            ),
          "semaphore.release",
          this.resource,
        );
      } catch (error) {
        if (!(error instanceof NotHolderError)) {
          this.ctx.options.onError(error, `releasing permit ${this.lockId}`);
        }
      }
    })();
    return this.released;
  }

  /** `await using permit = await sem.acquire()` releases it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
