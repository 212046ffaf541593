import { LIMITS, validatePageSize } from "@warden/contract";
import type { LockKey } from "@warden/contract";

/** Input of `LockStore.readQueue`. */
export interface ReadQueueInput extends LockKey {
  /** At most this many places, from the head; 1..`LIMITS.maxPageSize`. @defaultValue LIMITS.maxPageSize */
  readonly limit?: number;
}

/**
 * One live place in a key's fair queue (docs/decisions/0009), as the store keeps it. The
 * stores keep only the place's id, its arrival order and its heartbeat deadline: who waits
 * there (clientId, ownerId, when the wait began) is the server's to know
 * (docs/decisions/0155).
 */
export interface QueuePlace {
  /** The waiter's place id (`FairWait.waiterId`). */
  readonly waiterId: string;
  /**
   * The store's arrival number (Redis: the sorted-set score; MySQL: the row's id; local: a
   * counter). Only its order means anything; it grows along the queue.
   */
  readonly arrival: number;
  /** When the place lapses unless its waiter calls again: ms since the Unix epoch, store clock. */
  readonly deadline: number;
  /** Remaining ms until `deadline` on the store's clock (> 0: dead places are never returned). */
  readonly ttlMs: number;
}

/** The checked `limit` of a queue read. */
export function validateQueueLimit(value: unknown): number {
  return value === undefined ? LIMITS.maxPageSize : validatePageSize(value);
}
