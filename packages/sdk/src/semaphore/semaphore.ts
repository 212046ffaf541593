import { InvalidArgumentError, validateLockKey, type LockKey } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { clientQuery } from "../client/client-query.js";
import { checkWaitOptions, grantedWithin, requestGrant } from "../grant/request-grant.js";
import { Permit, renewPermitGrant, type HeldPermits } from "./permit.js";

/** Options of {@link Semaphore.acquire}. */
export interface PermitAcquireOptions {
  /** Permits to take, an integer in 1..the resource's total. @defaultValue 1 */
  readonly permits?: number;
  /** How long the server may wait for enough free permits, in ms; 0 tries once. @defaultValue 10 000 */
  readonly waitMs?: number;
  /** Lease of the grant, renewed by the watchdog; default: the resource's defaultLeaseMs. */
  readonly leaseMs?: number;
  /** Who holds it within this client (shown by inspect). @defaultValue a new random id */
  readonly ownerId?: string;
  /**
   * Gives up the wait: the server withdraws it (`lock.cancelWait`) and the acquire rejects
   * with the signal's reason; a grant that crossed the abort is released.
   */
  readonly signal?: AbortSignal;
}

/** A semaphore key's live grants as the server reports them. */
export interface SemaphoreInfo {
  readonly holders: ReadonlyArray<{
    readonly lockId: string;
    readonly fence: string | null;
    readonly holder: { readonly clientId: string; readonly ownerId: string };
    readonly permits: number;
    readonly expiresAt: number;
    readonly renewals: number;
    readonly tier: string;
  }>;
  readonly inUse: number;
  readonly totalPermits: number;
}

function checkOptions(options: PermitAcquireOptions): {
  permits: number;
  waitMs: number;
  leaseMs: number | undefined;
  ownerId: string;
} {
  const permits = options.permits ?? 1;
  if (!Number.isInteger(permits) || permits < 1) {
    throw new InvalidArgumentError("permits", "must be an integer greater than 0");
  }
  return { permits, ...checkWaitOptions(options) };
}

/**
 * One key of a semaphore resource (`kind: semaphore`, `permits` = its total per key),
 * from `warden.semaphore(resource, businessKey)` (docs/decisions/0161).
 */
export class Semaphore {
  readonly resource: string;
  readonly businessKey: string;

  /** @internal Made by `Warden.semaphore`; not for direct use. */
  constructor(
    private readonly ctx: ClientContext,
    private readonly held: HeldPermits,
    key: LockKey,
  ) {
    const checked = validateLockKey(key);
    this.resource = checked.resource;
    this.businessKey = checked.businessKey;
  }

  /**
   * Takes `permits` of the key, waiting server-side up to `waitMs` (first come, first
   * served when the resource is fair). The permit is renewed until released or lost.
   *
   * @throws LockTimeoutError - not enough permits were free within `waitMs`.
   * @throws InvalidArgumentError - bad options, permits above the resource's total, or the
   *   resource is not a semaphore (`field: "kind"`).
   * @throws UnknownResourceError - no such resource for this tenant.
   * @throws OutcomeUnknownError - no answer in time: a grant may have been made; it runs out
   *   with its lease.
   */
  async acquire(options: PermitAcquireOptions = {}): Promise<Permit> {
    return grantedWithin(await this.request(options), options.waitMs);
  }

  /** Like {@link acquire} with `waitMs: 0`, but resolves null when the permits are not free. */
  tryAcquire(options: Omit<PermitAcquireOptions, "waitMs"> = {}): Promise<Permit | null> {
    return this.request({ ...options, waitMs: 0 });
  }

  /** The key's live grants on every tier the server reaches. */
  async inspect(): Promise<SemaphoreInfo> {
    const key = { resource: this.resource, businessKey: this.businessKey };
    return clientQuery(
      this.ctx,
      (api, call) => api.semaphore.inspect.query(key, call),
      "semaphore.inspect",
      this.resource,
    );
  }

  private async request(options: PermitAcquireOptions): Promise<Permit | null> {
    const { permits, waitMs, leaseMs, ownerId } = checkOptions(options);
    return requestGrant(this.ctx, {
      operation: "semaphore.acquire",
      resource: this.resource,
      businessKey: this.businessKey,
      ownerId,
      extra: { permits },
      waitMs,
      leaseMs,
      signal: options.signal,
      send: (api, input, call) => api.semaphore.acquire.mutate(input, call),
      renew: renewPermitGrant,
      hold: (facts, reply) => new Permit(this.ctx, this.held, { ...facts, permits: reply.permits }),
    });
  }
}
