import {
  InvalidArgumentError,
  LeaseLostError,
  LIMITS,
  NotHolderError,
  OutcomeUnknownError,
  type Tier,
} from "@warden/core";
import "../polyfill/async-dispose.js";
import type { FencedHolder, StaleFenceReport } from "../guards/fenced-holder.js";
import type { Lease, LeaseHandle } from "../lease/lease.js";
import { checkMs } from "../options/check.js";
import { backgroundTimeout } from "../time/timers.js";

/** What a lock handle needs from its client besides the lease. */
export interface LockServices {
  /** Sends a stale-fence report; never throws. */
  reportStaleFence(lock: Lock, report: StaleFenceReport): void;
}

/**
 * A held lock: one acquire's handle on a grant. Release it exactly once (`release()`,
 * `await using`, or `withLock`); releasing again is harmless. Its `signal` aborts with a
 * `LeaseLostError` as soon as the lease may be lost — a refused or unconfirmed renewal,
 * the renewal limit, or `maxHoldMs` — early enough that the store cannot have granted the
 * key to anyone else yet (S4). Pass the signal to the work the lock protects, and pass
 * `fence` to the resource through a fence guard.
 */
export class Lock implements AsyncDisposable, FencedHolder {
  /** The registered resource, e.g. `order:settle`. */
  readonly resource: string;
  /** The business key inside the resource, e.g. an order id. */
  readonly businessKey: string;
  /** The task inside this client that holds the lock. */
  readonly ownerId: string;
  /** Id of the grant; re-entries of the same owner share it. */
  readonly lockId: string;
  /**
   * Fencing token: a decimal unsigned 64-bit integer, larger than every earlier grant's
   * fence of this key. Null on the `local` tier, where there is no cross-process exclusion.
   */
  readonly fence: string | null;
  /** Where the grant was made: `redis`, `mysql`, or `local` (no fence, no cross-process exclusion). */
  readonly tier: Tier;
  /** Aborts (with a `LeaseLostError` reason) when the lock may be lost or ran past `maxHoldMs`. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private releasing: Promise<void> | null = null;
  private readonly maxHoldTimer: NodeJS.Timeout | undefined;
  private readonly handle: LeaseHandle;

  /** @internal Made by `Warden.acquire`; not for direct use. */
  constructor(
    private readonly lease: Lease,
    private readonly services: LockServices,
    maxHoldMs: number | undefined,
  ) {
    this.resource = lease.resource;
    this.businessKey = lease.businessKey;
    this.ownerId = lease.ownerId;
    this.lockId = lease.lockId;
    this.fence = lease.fence;
    this.tier = lease.tier;
    this.signal = this.controller.signal;
    this.handle = { onLeaseLost: (error) => this.abort(error) };
    if (maxHoldMs !== undefined) {
      this.maxHoldTimer = backgroundTimeout(() => {
        this.abort(
          new LeaseLostError(
            this.lockId,
            `lock ${this.lockId} held past maxHoldMs (${maxHoldMs} ms): released`,
          ),
        );
        void this.release();
      }, maxHoldMs);
    }
    lease.attach(this.handle);
  }

  /** Expiry of the lease on the store's clock, ms since the Unix epoch (updated by renewals). */
  get expiresAt(): number {
    return this.lease.expiresAt;
  }

  /** True until the lock is released or its signal aborted. */
  get held(): boolean {
    return this.releasing === null && !this.signal.aborted && this.lease.status === "held";
  }

  /** Renewals of this grant confirmed so far (the watchdog's and `extend`'s). */
  get renewals(): number {
    return this.lease.renewals;
  }

  /**
   * Renews the lease now, to `leaseMs` from now (default: the lease asked for at acquire,
   * or the resource's default). The watchdog does this on its own; call it before a step
   * that must not start on a lease about to end.
   *
   * @throws LeaseLostError - the lock is no longer held (its signal has aborted).
   * @throws InvalidArgumentError - bad `leaseMs`, or the resource's renewal limit is used up.
   * @throws OutcomeUnknownError - no answer: the watchdog keeps trying until the deadline.
   */
  async extend(leaseMs?: number): Promise<void> {
    const ms = checkMs("leaseMs", leaseMs, 1, LIMITS.maxLeaseMs);
    if (!this.held) {
      throw this.lostReason() ?? new LeaseLostError(this.lockId, `lock ${this.lockId} is not held`);
    }
    const { maxRenewals } = this.lease;
    if (maxRenewals !== null && this.lease.renewals >= maxRenewals) {
      throw new InvalidArgumentError(
        "maxRenewals",
        `resource ${this.resource} allows ${maxRenewals} renewals per grant; all are used`,
      );
    }
    try {
      await this.lease.extend(ms);
    } catch (error) {
      if (error instanceof NotHolderError || error instanceof LeaseLostError) {
        throw this.lostReason() ?? error;
      }
      if (error instanceof InvalidArgumentError || error instanceof OutcomeUnknownError)
        throw error;
      throw new OutcomeUnknownError(this.lockId, "extend", { cause: error });
    }
  }

  /**
   * Releases the lock: stops its watchdog, then releases at the store (once the last
   * handle of a re-entered lock lets go). Idempotent: later calls return the first call's
   * promise. Never rejects: a release the server did not confirm is retried in the
   * background until the lease has expired anyway.
   */
  release(): Promise<void> {
    this.releasing ??= (async () => {
      clearTimeout(this.maxHoldTimer);
      await this.lease.detach(this.handle);
    })();
    return this.releasing;
  }

  /** `await using lock = await warden.acquire(…)` releases at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /** Reports a stale fence found at a resource to the server (used by the fence guards). */
  reportStaleFence(report: StaleFenceReport): void {
    this.services.reportStaleFence(this, report);
  }

  private abort(reason: LeaseLostError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  private lostReason(): LeaseLostError | null {
    const reason: unknown = this.signal.reason;
    return reason instanceof LeaseLostError ? reason : this.lease.lossError;
  }
}
