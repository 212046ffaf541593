import type { OutcomeUnknownError } from "@warden/contract";

/**
 * For an acquire whose outcome is unknown, when the store's clean-up of the maybe-grant
 * settled: `true` once the store answered the removal of its lockId (the grant, if it was
 * made, is gone), `false` when it gave up (the lease then ran out on its own). Kept beside
 * the error rather than on it: the error crosses the wire, this does not.
 */
const cleanups = new WeakMap<OutcomeUnknownError, Promise<boolean>>();

/** Records when the clean-up of `error`'s maybe-grant settles; returns `error`. */
export function withCleanup(
  error: OutcomeUnknownError,
  settled: Promise<boolean>,
): OutcomeUnknownError {
  cleanups.set(error, settled);
  return error;
}

/**
 * When the clean-up of an unknown acquire's maybe-grant settles (see {@link withCleanup});
 * `undefined` for any other error, and for an unknown outcome no clean-up follows.
 */
export function cleanupOf(error: unknown): Promise<boolean> | undefined {
  return typeof error === "object" && error !== null
    ? cleanups.get(error as OutcomeUnknownError)
    : undefined;
}
