import { LockUnavailableError } from "@warden/contract";

/** How long a wait pauses after a `contended` refusal that names no `retryAfterMs`. */
const CONTENDED_PAUSE_MS = 10;

/**
 * Whether a waiting acquire takes an error of one try for a refusal, and how long it pauses
 * before the next try; `null` when the error ends the wait. A wait goes on through the two
 * refusals a store makes of a call that ran nowhere and will likely pass soon, both named
 * by a `LockUnavailableError` that says when to try again:
 * - `contended`: MySQL kept picking the call as a deadlock victim; the key is busy
 *   (docs/decisions/0229);
 * - `store-unavailable` with a `retryAfterMs`: Redis Cluster redirected the call on every
 *   try, because the key's slot is moving between masters or the slot map is settling
 *   (docs/decisions/0231, 0232).
 * Every other error (a store down or failing, a policy that refuses, an unknown outcome)
 * ends the wait, as it did before. A try (`waitMs` 0) answers with the error either way.
 */
export function retrySoonPauseMs(error: unknown): number | null {
  if (!(error instanceof LockUnavailableError)) return null;
  if (error.reason === "contended") return error.retryAfterMs ?? CONTENDED_PAUSE_MS;
  if (error.reason === "store-unavailable" && error.retryAfterMs !== null) {
    return error.retryAfterMs;
  }
  return null;
}
