import {
  InvalidArgumentError,
  type AcquireResult,
  type Holder,
  type LeaseView,
  type LockKey,
  type Tier,
} from "@warden/contract";
import type { FairWait } from "./fair-wait.js";
import type { LeaseFacts } from "./lease-facts.js";
import type { QueuePlace, ReadQueueInput } from "./queue-place.js";

export type { QueuePlace, ReadQueueInput } from "./queue-place.js";

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
  /** First come, first served for this key (see {@link FairWait}); omit for a plain acquire. */
  readonly fair?: FairWait;
  /**
   * Lock-delay (docs/decisions/0175): after this grant's lease ends involuntarily (it
   * expires, or is force-released) the key is granted to nobody for this long; a voluntary
   * release starts no delay. An acquire that passes it is also refused while a delay is in
   * force ({@link LOCK_DELAY_HOLDER}, `ttlMs` = the delay left). An integer in
   * 0..{@link MAX_LOCK_DELAY_MS}; 0 or absent: no delay, and delays are not checked.
   */
  readonly lockDelayMs?: number;
}

/** The longest lock-delay a resource may ask for, in ms. */
export const MAX_LOCK_DELAY_MS = 60_000;

/**
 * Who a refusal names when the key is free but a lock-delay is in force: the last lease
 * ended involuntarily less than its delay ago. The refusal's `ttlMs` is the delay left.
 */
export const LOCK_DELAY_HOLDER: Holder = Object.freeze({ clientId: "", ownerId: "lock-delay" });

/** Checks `lockDelayMs`: absent, or an integer in 0..{@link MAX_LOCK_DELAY_MS}; 0 when absent. */
export function validateLockDelayMs(value: unknown): number {
  if (value === undefined) return 0;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < 0 ||
    value > MAX_LOCK_DELAY_MS
  ) {
    throw new InvalidArgumentError("lockDelayMs", `must be an integer in 0..${MAX_LOCK_DELAY_MS}`);
  }
  return value;
}

/** A key with no lease whose lock-delay is in force (see {@link LockStore.inspectDelay}). */
export interface LockDelayView extends LockKey {
  /** When the delay ends, in ms since the Unix epoch on the store's clock. */
  readonly lockDelayUntil: number;
  /** Delay left in ms as the store measured it when answering. */
  readonly remainingMs: number;
  readonly tier: Tier;
}

/** Input of {@link LockStore.leaveQueue}. */
export interface LeaveQueueInput extends LockKey {
  readonly waiterId: string;
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
  /** The lease this release acted on, as it was stored (fence, holder, grantedAt, renewals). */
  readonly lease: LeaseFacts;
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
  /** Returns the lease as extended (its `renewals` counts this extend). */
  extend(input: ExtendInput): Promise<LeaseView>;
  inspect(key: LockKey): Promise<LeaseView | null>;
  /**
   * The key's lock-delay when one is in force and no lease exists (docs/decisions/0175);
   * null otherwise. Writes nothing. Optional: a wrapper without it reports no delays.
   */
  inspectDelay?(key: LockKey): Promise<LockDelayView | null>;
  list(input: ListInput): Promise<LeasePage>;
  /** Removes the lease whatever its holder (or only `lockId`'s); returns what was removed, facts included. */
  forceRelease(input: ForceReleaseInput): Promise<LeaseView | null>;
  /** Gives up a waiter's place in the key's queue (a cancelled wait); true when it had one. */
  leaveQueue(input: LeaveQueueInput): Promise<boolean>;
  /**
   * The key's live fair-queue places from the head, in arrival order (dead ones skipped);
   * writes nothing. Empty for a key nobody queues for (and for resources that are not fair).
   */
  readQueue(input: ReadQueueInput): Promise<QueuePlace[]>;
  /** Stops timers and closes connections the store owns. Idempotent. */
  close(): Promise<void>;
}
