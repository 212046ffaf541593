import {
  InvalidArgumentError,
  validateHolder,
  validateLeaseMs,
  validateWaitReplicas,
  validateLockId,
  validateLockKey,
  type Holder,
  type LockKey,
  type Tier,
} from "@warden/contract";
import { validateFairWait, type FairWait } from "./fair-wait.js";
import type { RwListInput } from "./rw-lock-store.js";

/** Hard limits of a semaphore on every tier (docs/decisions/0160). */
export const SEMAPHORE_LIMITS = Object.freeze({
  /** Most permits a semaphore resource may have. */
  maxTotalPermits: 10_000,
});

/**
 * Input of {@link SemaphoreStore.acquire}: take `permits` of the key's `totalPermits`.
 * Every acquire is a new permit grant with its own lockId and fence (no re-entry: a holder
 * that wants two grants gets two).
 */
export interface SemaphoreAcquireInput extends LockKey {
  readonly holder: Holder;
  /** Lease length in ms; an integer in 1..`LIMITS.maxLeaseMs`. */
  readonly leaseMs: number;
  /** Permits this grant takes; an integer in 1..totalPermits. @defaultValue 1 */
  readonly permits?: number;
  /** The resource's total (its policy's `permits`); an integer in 1..`SEMAPHORE_LIMITS.maxTotalPermits`. */
  readonly totalPermits: number;
  /** First come, first served for this key (the same queue rules as the mutex, {@link FairWait}). */
  readonly fair?: FairWait;
  /**
   * Permits of this key that another tier may still hold (set by the tier wrapper during
   * a switch, docs/decisions/0160); counted against the total as if held here.
   * @defaultValue 0
   */
  readonly heldElsewhere?: number;
  /**
   * Replicas that must acknowledge the grant (Redis `WAIT`) before it counts; a grant
   * that is not acknowledged in time is undone and the acquire fails with
   * `ReplicationTimeoutError`. Ignored by tiers without replicas. @defaultValue 0
   */
  readonly waitReplicas?: number;
}

/** One live permit grant as a store sees it. `fence` is null only on the local tier. */
export interface PermitView extends LockKey {
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  /** Permits this grant holds. */
  readonly permits: number;
  /** When granted, in ms since the Unix epoch on the store's clock. */
  readonly grantedAt: number;
  /** Extends of this grant so far. */
  readonly renewals: number;
  /** Expiry in ms since the Unix epoch, on the store's clock. */
  readonly expiresAt: number;
  /** Remaining lease in ms as the store measured it when answering. */
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** What {@link SemaphoreStore.release} answers: the grant as it was. */
export interface PermitRelease extends PermitView {
  /**
   * Whether a caller refused permits of this key may be waiting for a release elsewhere
   * (another server instance): false when the store knows nobody was refused since the last
   * release took the mark, so the release need not be announced beyond this process. Only
   * the Redis store tracks it (decision 0206); absent means unknown: announce.
   */
  readonly watched?: boolean;
}

/** A granted semaphore acquire. */
export interface PermitGrant extends PermitView {
  readonly granted: true;
  /** Permits of the key in use on this tier right after this grant, this one included. */
  readonly inUse: number;
  readonly totalPermits: number;
}

/**
 * A refused semaphore acquire: not enough permits free (or, `queued`, earlier fair waiters
 * go first). `retryAfterMs` is when enough permits lapse at the latest if nobody releases
 * (0 when the store cannot tell, e.g. permits held on another tier or a queue ahead).
 */
export interface PermitRefusal {
  readonly granted: false;
  readonly inUse: number;
  readonly totalPermits: number;
  readonly retryAfterMs: number;
  readonly queued: boolean;
  readonly tier: Tier;
}

/** Result of {@link SemaphoreStore.acquire}. */
export type PermitResult = PermitGrant | PermitRefusal;

/** Input of {@link SemaphoreStore.release} and of a forced release of one grant. */
export interface PermitRef extends LockKey {
  readonly lockId: string;
}

/** Input of {@link SemaphoreStore.extend}. */
export interface PermitExtendInput extends PermitRef {
  /** New remaining lease in ms from now (store clock); integer in 1..`LIMITS.maxLeaseMs`. */
  readonly leaseMs: number;
}

/** Input of {@link SemaphoreStore.forceRelease}: every grant of the key, or only `lockId`'s. */
export interface PermitForceReleaseInput extends LockKey {
  readonly lockId?: string;
}

/** What {@link SemaphoreStore.inspect} reports about one key. */
export interface SemaphoreView extends LockKey {
  /** Live grants, soonest expiry first. */
  readonly holders: PermitView[];
  /** Permits of these grants together. */
  readonly inUse: number;
  /** The total the latest acquire of the key named; null when the store has none. */
  readonly totalPermits: number | null;
  readonly tier: Tier;
}

/**
 * Input of {@link SemaphoreStore.list}: one resource's keys with live grants, a page at a
 * time, paged like the read-write lock's list (the same cursor rules per store).
 */
export type SemaphoreListInput = RwListInput;

/**
 * A page of {@link SemaphoreStore.list}: the keys holding at least one live grant, each as
 * `inspect` sees it, and the cursor of the next page (null at the end). A page may hold
 * fewer keys than `limit` (keys whose grants ended meanwhile are left out) while the
 * cursor is not null yet.
 */
export interface SemaphoreKeyPage {
  readonly keys: SemaphoreView[];
  readonly cursor: string | null;
}

/**
 * A counting semaphore per lock key, on one tier (docs/decisions/0160). Every check-then-act
 * is atomic in the store (one Lua script, one MySQL transaction, one synchronous step in
 * process); expired grants are reclaimed by the acquire itself, never by a sweeper.
 *
 * Errors: `InvalidArgumentError` for bad input (nothing changed), `NotHolderError` when a
 * release or extend names a lockId that holds no live permit of the key,
 * `OutcomeUnknownError` when a grant's reply was lost (the grant is removed by lockId in the
 * background), `LockUnavailableError` when the store cannot grant safely.
 */
export interface SemaphoreStore {
  readonly tier: Tier;
  acquire(input: SemaphoreAcquireInput): Promise<PermitResult>;
  /** Releases the grant; returns it as it was. */
  release(input: PermitRef): Promise<PermitRelease>;
  /** Sets the grant's remaining lease; returns it as extended (`renewals` counts this extend). */
  extend(input: PermitExtendInput): Promise<PermitView>;
  inspect(key: LockKey): Promise<SemaphoreView>;
  /** Removes every live grant of the key (or only `lockId`'s); returns what was removed. */
  forceRelease(input: PermitForceReleaseInput): Promise<PermitView[]>;
  /** Gives up a fair waiter's place in the key's queue; true when it had one. */
  leaveQueue(input: LockKey & { readonly waiterId: string }): Promise<boolean>;
  /**
   * The resource's keys that hold a live grant, as the store sees them: holder lists and a
   * resource's retirement ask the store, so they see grants made by any instance, including
   * one that stopped (docs/decisions/0217). Keys with only fair waiters are left out.
   */
  list(input: SemaphoreListInput): Promise<SemaphoreKeyPage>;
  close(): Promise<void>;
}

/** True when the key view holds a live grant. */
export function holdsPermits(view: SemaphoreView): view is SemaphoreView {
  return view.holders.length > 0;
}

/** A checked acquire input, in canonical form. */
export interface CheckedSemaphoreAcquire {
  readonly key: LockKey;
  readonly holder: Holder;
  readonly leaseMs: number;
  readonly permits: number;
  readonly totalPermits: number;
  readonly fair: FairWait | undefined;
  readonly heldElsewhere: number;
  readonly waitReplicas: number;
}

/** Checks the total: an integer in 1..`SEMAPHORE_LIMITS.maxTotalPermits`. */
export function validateTotalPermits(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError("totalPermits", "must be a positive integer");
  }
  if (value > SEMAPHORE_LIMITS.maxTotalPermits) {
    throw new InvalidArgumentError(
      "totalPermits",
      `must be at most ${SEMAPHORE_LIMITS.maxTotalPermits}`,
    );
  }
  return value;
}

/** Checks the permits of one acquire against the total: an integer in 1..total, default 1. */
export function validatePermits(value: unknown, totalPermits: number): number {
  if (value === undefined) return 1;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new InvalidArgumentError("permits", "must be an integer");
  }
  if (value <= 0) throw new InvalidArgumentError("permits", "must be greater than 0");
  if (value > totalPermits) {
    throw new InvalidArgumentError(
      "permits",
      `must be at most the resource's total of ${totalPermits}`,
    );
  }
  return value;
}

/** Checks a whole acquire input; throws InvalidArgumentError before anything is sent. */
export function checkSemaphoreAcquire(input: SemaphoreAcquireInput): CheckedSemaphoreAcquire {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const holder = validateHolder(input.holder);
  const leaseMs = validateLeaseMs(input.leaseMs);
  const totalPermits = validateTotalPermits(input.totalPermits);
  const permits = validatePermits(input.permits, totalPermits);
  const fair = validateFairWait(input.fair);
  const heldElsewhere = input.heldElsewhere ?? 0;
  if (!Number.isInteger(heldElsewhere) || heldElsewhere < 0) {
    throw new InvalidArgumentError("heldElsewhere", "must be a non-negative integer");
  }
  const waitReplicas = validateWaitReplicas(input.waitReplicas);
  return { key, holder, leaseMs, permits, totalPermits, fair, heldElsewhere, waitReplicas };
}

/** Checks a key and a lockId, returning the canonical key. */
export function checkPermitRef(input: PermitRef): { key: LockKey; lockId: string } {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  return { key, lockId: validateLockId(input.lockId) };
}

/**
 * How long until enough permits lapse for `needed` more, given live grants as
 * (permits, remaining ms) pairs: the remaining lease of the grant whose expiry frees the
 * last permit needed. 0 when the grants here cannot free enough (the rest is held elsewhere).
 */
export function retryAfterMs(
  grants: readonly { readonly permits: number; readonly ttlMs: number }[],
  needed: number,
): number {
  let freed = 0;
  for (const grant of [...grants].sort((a, b) => a.ttlMs - b.ttlMs)) {
    freed += grant.permits;
    if (freed >= needed) return Math.max(0, grant.ttlMs);
  }
  return 0;
}
