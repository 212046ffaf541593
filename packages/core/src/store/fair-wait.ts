import { InvalidArgumentError, LIMITS, type Holder } from "@warden/contract";

/**
 * Fair (first come, first served) acquisition of one key, decided by the store itself so
 * that every server instance sees one queue per key (issue 14).
 *
 * - `waiterId` set: the caller holds a place in the key's queue. Its first call appends it;
 *   every later call keeps the place and renews it for `heartbeatMs`. A place not renewed
 *   within `heartbeatMs` is dropped (the waiter died). A grant leaves the queue.
 * - `waiterId` null: the caller only respects the queue (a try without waiting): it is
 *   refused while any live waiter queues for the key.
 *
 * A new grant of a free key needs that no live waiter queued before the caller; a key held
 * by another holder is refused as always; a re-entry by the holder is not held back. An
 * acquire without `fair` ignores queues (resources that are not fair never build one).
 */
export interface FairWait {
  readonly waiterId: string | null;
  /** How long the place is kept without another call from the waiter, in ms. */
  readonly heartbeatMs: number;
}

/** Who a refusal names when the key is free but earlier waiters go first. */
export const QUEUED_HOLDER: Holder = Object.freeze({ clientId: "", ownerId: "" });

const WAITER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a fair-wait option: waiterId 1..64 of [A-Za-z0-9_-] or null, heartbeatMs 1..maxLeaseMs. */
export function validateFairWait(value: unknown): FairWait | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) {
    throw new InvalidArgumentError("fair", "must be { waiterId, heartbeatMs }");
  }
  const { waiterId, heartbeatMs } = value as Record<string, unknown>;
  if (waiterId !== null && (typeof waiterId !== "string" || !WAITER_ID.test(waiterId))) {
    throw new InvalidArgumentError("fair.waiterId", "must be 1..64 of A-Z a-z 0-9 _ - (or null)");
  }
  if (
    typeof heartbeatMs !== "number" ||
    !Number.isInteger(heartbeatMs) ||
    heartbeatMs < 1 ||
    heartbeatMs > LIMITS.maxLeaseMs
  ) {
    throw new InvalidArgumentError(
      "fair.heartbeatMs",
      `must be an integer in 1..${LIMITS.maxLeaseMs}`,
    );
  }
  return { waiterId, heartbeatMs };
}

/** Checks a waiterId given on its own (leaving a queue). */
export function validateWaiterId(value: unknown): string {
  if (typeof value !== "string" || !WAITER_ID.test(value)) {
    throw new InvalidArgumentError("waiterId", "must be 1..64 of A-Z a-z 0-9 _ -");
  }
  return value;
}
