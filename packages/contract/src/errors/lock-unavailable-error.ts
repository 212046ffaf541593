import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * Why nothing could grant, as a caller branches on it (what to retry, what to alert on):
 * - `fail-closed`: the resource's policy forbids the only tier that can grant now (Redis
 *   is down and it does not degrade to MySQL, or the fleet is on `local` and it fails closed);
 * - `tier-change`: the fleet is moving between tiers, or moved since this grant was made;
 * - `store-unavailable`: a store (Redis, MySQL) did not answer, failed or refused;
 * - `contended`: the store was reachable but the key was too contended to decide within the
 *   attempts allowed (MySQL kept picking the call as a deadlock victim): retry after a short
 *   backoff;
 * - `fencing-epoch`: the store's fencing epoch is not durable yet, so no fence may be minted;
 * - `replicas`: fewer Redis replicas than the resource's `waitReplicas` acknowledged the
 *   grant in time, and it was undone;
 * - `quota`: a request-rate quota refused the call;
 * - `server-unreachable`: the client could not reach a Warden server (nothing was sent), and
 *   it may not lock in-process instead;
 * - `shutting-down`: the server that got the call is shutting down;
 * - `wait-withdrawn`: the server withdrew a blocking acquire's wait;
 * - `client-closed`: the client was closed;
 * - `unfenced-lock`: a fenced operation was given an in-process lock, which has no fence;
 * - `unsupported`: the server does not serve this kind of lock.
 */
export type LockUnavailableReason = (typeof LOCK_UNAVAILABLE_REASONS)[number];

/** Every {@link LockUnavailableReason}, for validators and schemas. */
export const LOCK_UNAVAILABLE_REASONS = [
  "fail-closed",
  "tier-change",
  "store-unavailable",
  "contended",
  "fencing-epoch",
  "replicas",
  "quota",
  "server-unreachable",
  "shutting-down",
  "wait-withdrawn",
  "client-closed",
  "unfenced-lock",
  "unsupported",
] as const;

/**
 * No tier can grant with cross-process exclusion right now (fail-closed), the store
 * refused to grant because its fencing epoch is not yet durable, or the server cannot be
 * reached. `reason` says which ({@link LockUnavailableReason}); `retryAfterMs` says when to
 * try again, when known.
 */
export class LockUnavailableError extends WardenError<"LOCK_UNAVAILABLE"> {
  readonly code = ErrorCode.LockUnavailable;
  override readonly name = "LockUnavailableError";
  readonly retryAfterMs: number | null;
  readonly reason: LockUnavailableReason;

  constructor(
    message: string,
    options?: {
      cause?: unknown;
      retryAfterMs?: number | null;
      /** `store-unavailable` when not given. */
      reason?: LockUnavailableReason;
    },
  ) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs ?? null;
    this.reason = options?.reason ?? "store-unavailable";
  }

  get details() {
    return { retryAfterMs: this.retryAfterMs, reason: this.reason };
  }
}
