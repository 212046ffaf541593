import { LeaseLostError, NotHolderError, type Tier } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import type { HeldGrants } from "../client/held-grants.js";
import { LazyAbort } from "../lease/lazy-abort.js";
import type { LeaseFacts } from "../lease/lease-facts.js";
import { Watchdog } from "../lease/watchdog.js";
import type { RemoteGrantRef } from "../remote/release-remote.js";

/** What the server granted, as a {@link HeldGrant} starts from. */
export interface GrantFacts extends LeaseFacts {
  readonly ttlMs: number;
  readonly expiresAt: number;
  readonly maxRenewals: number | null;
  /** Lease asked for at each renewal; undefined = the resource's default. */
  readonly leaseMs: number | undefined;
  /** Monotonic instant the acquire (or its confirming renewal) was sent. */
  readonly sentAt: number;
}

/** The input of a single extend (with `leaseMs`) or release call for `grant`. */
export function grantInput(grant: RemoteGrantRef, leaseMs?: number) {
  return {
    resource: grant.resource,
    businessKey: grant.businessKey,
    lockId: grant.lockId,
    tier: grant.tier,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  };
}

/**
 * The lease lifecycle a semaphore permit and a read-write grant share: kept alive by a
 * watchdog on the client's renewal clock, lost (`signal` aborts with a `LeaseLostError`)
 * when the watchdog says so, released once — the watchdog stopped first, so no renewal
 * lands after the release. Subclasses say how one renewal and the release reach the server.
 */
export abstract class HeldGrant implements LeaseFacts {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  readonly fence: string | null;
  /** The tier that granted it (release goes there). */
  readonly tier: Tier;
  /** Latest expiry the server reported, ms since the Unix epoch (server clock). */
  expiresAt: number;
  /** @internal The client the grant's calls go through. */
  protected readonly ctx: ClientContext;
  private readonly lost = new LazyAbort();
  private readonly watchdog: Watchdog;
  private released: Promise<void> | null = null;

  /** @internal Made by a `Semaphore` or `RwLock` acquire; not for direct use. */
  protected constructor(
    ctx: ClientContext,
    private readonly set: HeldGrants<HeldGrant>,
    grant: GrantFacts,
  ) {
    this.ctx = ctx;
    this.resource = grant.resource;
    this.businessKey = grant.businessKey;
    this.ownerId = grant.ownerId;
    this.lockId = grant.lockId;
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
        // client's other due renewals, in one bulk `renew` command (permits:
        // docs/decisions/0162; read-write grants: docs/decisions/0211).
        clock: ctx.remote.clock,
      },
    );
    this.set.add(this);
    this.watchdog.start(grant.sentAt, grant.ttlMs);
  }

  /** @internal What messages call the grant: "permit", "read lock", "write lock". */
  protected abstract get label(): string;

  /** @internal One renewal at the server; resolves with the lease it now has. */
  protected abstract renewOnce(
    leaseMs: number | undefined,
  ): Promise<{ readonly ttlMs: number; readonly expiresAt: number }>;

  /**
   * @internal Releases at the server; rejects with `NotHolderError` when it holds nothing
   * any more.
   */
  protected abstract releaseAtServer(): Promise<unknown>;

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
    if (!this.held) throw new LeaseLostError(this.lockId, `the ${this.label} is not held`);
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
        await this.releaseAtServer();
      } catch (error) {
        if (!(error instanceof NotHolderError)) {
          this.ctx.options.onError(error, `releasing ${this.label} ${this.lockId}`);
        }
      }
    })();
    return this.released;
  }

  /**
   * `await using permit = await sem.acquire()` (or `lease = await warden.rwLock(r, k).read()`)
   * releases it at the end of the scope.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
