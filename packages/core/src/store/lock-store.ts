import type { AcquireResult, Holder, LeaseView, LockKey, Tier } from "./types.js";

/** Input of {@link LockStore.acquire}. */
export interface AcquireInput extends LockKey {
  readonly holder: Holder;
  /** Lease length in ms; an integer in 1..`LIMITS.maxLeaseMs`. */
  readonly leaseMs: number;
  /**
   * Replicas that must acknowledge the grant (Redis `WAIT`) before it counts; a grant
   * that is not acknowledged in time is undone. Ignored by tiers without replicas.
   * @defaultValue 0
   */
  readonly waitReplicas?: number;
}

/** Input of {@link LockStore.release}. */
export interface ReleaseInput extends LockKey {
  readonly lockId: string;
}

/** Result of a release: `released` is true once the key is free (reentry count hit 0). */
export interface ReleaseResult {
  readonly released: boolean;
  /** Entries the holder still has after this release; 0 when `released`. */
  readonly reentry: number;
}

/** Input of {@link LockStore.extend}. */
export interface ExtendInput extends LockKey {
  readonly lockId: string;
  /** New remaining lease in ms from now (store clock); integer in 1..`LIMITS.maxLeaseMs`. */
  readonly leaseMs: number;
}

/** Input of {@link LockStore.list}. */
export interface ListInput {
  readonly resource: string;
  /** Opaque cursor from the previous page; omit for the first page. */
  readonly cursor?: string;
  /** Page size; 1..1000. @defaultValue 100 */
  readonly limit?: number;
}

/** One page of live leases; `cursor` is null after the last page. */
export interface LeasePage {
  readonly leases: LeaseView[];
  readonly cursor: string | null;
}

/** Input of {@link LockStore.forceRelease}: an operator's release, optionally of one grant. */
export interface ForceReleaseInput extends LockKey {
  /** Only release when this grant still holds the key. */
  readonly lockId?: string;
}

/**
 * What every tier implements. All check-then-act steps are atomic inside the store (one
 * Lua script, one SQL statement, or one synchronous in-process step).
 *
 * Errors: `InvalidArgumentError` for bad input (nothing changed), `NotHolderError` when
 * release/extend present a lockId that does not hold the key, `OutcomeUnknownError` when
 * a grant's reply was lost, `LockUnavailableError` when the store cannot grant safely.
 */
export interface LockStore {
  readonly tier: Tier;
  acquire(input: AcquireInput): Promise<AcquireResult>;
  release(input: ReleaseInput): Promise<ReleaseResult>;
  extend(input: ExtendInput): Promise<LeaseView>;
  inspect(key: LockKey): Promise<LeaseView | null>;
  list(input: ListInput): Promise<LeasePage>;
  /** Removes the lease whatever its holder (or only `lockId`'s); returns what was removed. */
  forceRelease(input: ForceReleaseInput): Promise<LeaseView | null>;
  /** Stops timers and closes connections the store owns. Idempotent. */
  close(): Promise<void>;
}
