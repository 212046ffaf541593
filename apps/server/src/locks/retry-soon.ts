import { performance } from "node:perf_hooks";
import { LockUnavailableError, OutcomeUnknownError } from "@warden/contract";
import { cleanupOf } from "@warden/core";

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
   * key was held (after an unknown outcome, that error, as before the wait went on through it);
   * `null` for `contended` (the key was busy: `LOCK_TIMEOUT`, like a refusal).
   */
  readonly endWith: LockUnavailableError | OutcomeUnknownError | null;
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
 * outcome) ends the wait, as it did before; a wait goes on after an unknown outcome whose
 * clean-up answered ({@link unlessItEndsTheWaitAfter}). A try (`waitMs` 0)
 * answers with the error.
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

/**
 * For a wait whose try's acquire came back with an unknown outcome (its reply was lost: a
 * connection that closed with it in flight, a Redis that froze past the call's deadline):
 * a refusal once the store's clean-up of the maybe-grant answered, so the wait goes on
 * (docs/decisions/0235). Only after an earlier try of the same wait was refused: that try
 * saw another holder, so this caller's try was not a re-entry of a lease it already held
 * (a re-entry keeps the lease's lockId, which the clean-up does not remove). Rethrows the
 * error, ending the wait as before, when the clean-up gave up (the store got no answer for a
 * whole lease), when `waitMs` ran out first, and for every error {@link ranNowhere} does not
 * take either. Resolves at once when `signal`
 * aborts: the wait's next sleep sees it and ends cancelled, and the clean-up goes on
 * without it.
 */
export async function unlessItEndsTheWaitAfter(
  error: unknown,
  refusedBefore: boolean,
  deadline: number,
  signal: AbortSignal,
): Promise<RanNowhere> {
  const ran = ranNowhere(error);
  if (ran !== null) return ran;
  const cleanup = refusedBefore ? cleanupOf(error) : undefined;
  if (cleanup === undefined || !(error instanceof OutcomeUnknownError)) throw error;
  const how = await settledBefore(cleanup, deadline - performance.now(), signal);
  if (how === "aborted" || how === "cleaned-up")
    return { granted: false, pauseMs: 0, endWith: error };
  throw error;
}

/** Whether `cleanup` settled true within `ms`, and whether `signal` aborted first. */
function settledBefore(
  cleanup: Promise<boolean>,
  ms: number,
  signal: AbortSignal,
): Promise<"cleaned-up" | "not-cleaned-up" | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  if (ms <= 0) return Promise.resolve("not-cleaned-up");
  return new Promise((resolve) => {
    const finish = (how: "cleaned-up" | "not-cleaned-up" | "aborted") => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(how);
    };
    const onAbort = () => finish("aborted");
    const timer = setTimeout(() => finish("not-cleaned-up"), ms);
    signal.addEventListener("abort", onAbort, { once: true });
    void cleanup.then((cleanedUp) => finish(cleanedUp ? "cleaned-up" : "not-cleaned-up"));
  });
}
