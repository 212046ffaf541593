import {
  InvalidArgumentError,
  LeaseLostError,
  LIMITS,
  NotHolderError,
  OutcomeUnknownError,
  type Tier,
} from "@warden/contract";
import "../polyfill/async-dispose.js";
import type { FencedHolder, StaleFenceReport } from "../guards/fenced-holder.js";
import { LazyAbort } from "../lease/lazy-abort.js";
import type { Lease, LeaseHandle } from "../lease/lease.js";
import { checkMs } from "../options/check.js";
import { grantAttributes, keyAttributes, traced } from "../telemetry/tracing.js";
import { backgroundTimeout } from "../time/timers.js";
import type { RevokeRequest } from "../transport/lock-socket.js";

export type { RevokeRequest } from "../transport/lock-socket.js";

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
 * key to anyone else yet (docs/design.md#loss-is-loud). Pass the signal to the work the lock
 * protects, and pass
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
  private readonly lost = new LazyAbort();
  private readonly revoke = new LazyAbort();
  private readonly revokeListeners = new Set<(request: RevokeRequest) => void>();
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
    this.handle = {
      onLeaseLost: (error) => this.abort(error),
      onRevokeRequested: (request) => this.revokeRequested(request),
    };
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

  /** Aborts (with a `LeaseLostError` reason) when the lock may be lost or ran past `maxHoldMs`. */
  get signal(): AbortSignal {
    return this.lost.signal;
  }

  /**
   * Aborts, with the first {@link RevokeRequest} as its reason, when someone (an operator,
   * or another caller of the tenant) asks this lock's holder to release it
   * (docs/decisions/0176-cooperative-revocation.md). Only a request: the lock stays held
   * and renewed until you release it; the requester may force-release it if you never do.
   */
  get revokeSignal(): AbortSignal {
    return this.revoke.signal;
  }

  /** Expiry of the lease on the store's clock, ms since the Unix epoch (updated by renewals). */
  get expiresAt(): number {
    return this.lease.expiresAt;
  }

  /** True until the lock is released or its signal aborted. */
  get held(): boolean {
    return this.releasing === null && !this.lost.aborted && this.lease.status === "held";
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
      await traced(
        "warden.extend",
        () => this.spanAttributes(),
        () => this.lease.extend(ms),
        (_, span) => span.setAttribute("warden.outcome", "extended"),
      );
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
      await traced(
        "warden.release",
        () => this.spanAttributes(),
        () => this.lease.detach(this.handle),
        (_, span) => span.setAttribute("warden.outcome", "released"),
      );
    })();
    return this.releasing;
  }

  /**
   * Calls `listener` with every request that this lock be released, while it is held (a
   * listener added after a request is called with the first one at once, on a microtask).
   * A throwing listener is ignored. Returns the unsubscribe function.
   */
  onRevokeRequested(listener: (request: RevokeRequest) => void): () => void {
    this.revokeListeners.add(listener);
    if (this.revokeSignal.aborted && this.held) {
      const first = this.revokeSignal.reason as RevokeRequest;
      queueMicrotask(() => {
        if (this.revokeListeners.has(listener)) call(listener, first);
      });
    }
    return () => {
      this.revokeListeners.delete(listener);
    };
  }

  /** `await using lock = await warden.acquire(…)` releases at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /** Reports a stale fence found at a resource to the server (used by the fence guards). */
  reportStaleFence(report: StaleFenceReport): void {
    this.services.reportStaleFence(this, report);
  }

  private spanAttributes() {
    return { ...keyAttributes(this.resource, this.businessKey), ...grantAttributes(this) };
  }

  private revokeRequested(request: RevokeRequest): void {
    if (!this.held) return;
    this.revoke.abort(request);
    for (const listener of [...this.revokeListeners]) call(listener, request);
  }

  private abort(reason: LeaseLostError): void {
    this.lost.abort(reason);
  }

  private lostReason(): LeaseLostError | null {
    const reason = this.lost.reason;
    return reason instanceof LeaseLostError ? reason : this.lease.lossError;
  }
}

function call(listener: (request: RevokeRequest) => void, request: RevokeRequest): void {
  try {
    listener(request);
  } catch {
    // A listener's failure is its own: the other listeners and the socket go on.
  }
}
