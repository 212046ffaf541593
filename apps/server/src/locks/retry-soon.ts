import { LockUnavailableError } from "@warden/contract";

/** How long a wait pauses after a `contended` refusal that names no `retryAfterMs`. */
const CONTENDED_PAUSE_MS = 10;

/** A try of a wait that failed with an error the wait goes on through. */
export interface RanNowhere {
  readonly granted: false;
  /** How long to pause before the next try (the store's `retryAfterMs`). */
  readonly pauseMs: number;
  /**
   * What the wait ends with if `waitMs` runs out before another try answers: the error itself
   * when the store could not decide (unreachable, redirected), so the caller is not told the
   * key was held; `null` for `contended` (the key was busy: `LOCK_TIMEOUT`, like a refusal).
   */
  readonly endWith: LockUnavailableError | null;
}

/**
 * Whether a waiting acquire takes an error of one try for a refusal, and how it goes on;
 * `null` when the error ends the wait. A wait goes on through the refusals a store makes of
 * a call that ran nowhere and may pass soon, each a `LockUnavailableError` that says when to
 * try again (docs/decisions/0229, 0232):
 * - `contended`: MySQL kept picking the call as a deadlock victim; the key is busy;
 * - `store-unavailable` with a `retryAfterMs`: the Redis store did not send the call (no
 *   connection: a failover, a restart, an outage the tier controller has not moved away
 *   from yet), or Redis Cluster redirected it on every try (the key's slot is being moved).
 * Every other error (MySQL failing, a policy that refuses, an unsettled epoch, an unknown
 * outcome) ends the wait, as it did before. A try (`waitMs` 0) answers with the error.
 */
export function ranNowhere(error: unknown): RanNowhere | null {
  if (!(error instanceof LockUnavailableError)) return null;
  if (error.reason === "contended") {
    return { granted: false, pauseMs: error.retryAfterMs ?? CONTENDED_PAUSE_MS, endWith: null };
  }
  if (error.reason === "store-unavailable" && error.retryAfterMs !== null) {
    return { granted: false, pauseMs: error.retryAfterMs, endWith: error };
  }
  return null;
}

/** {@link ranNowhere} as a `.catch` handler of a wait's try: rethrows what ends the wait. */
export function unlessItEndsTheWait(error: unknown): RanNowhere {
  const ran = ranNowhere(error);
  if (ran === null) throw error;
  return ran;
}
