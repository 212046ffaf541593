import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * No tier can grant with cross-process exclusion right now (fail-closed), the store
 * refused to grant because its fencing epoch is not yet durable, or the server cannot be
 * reached. `retryAfterMs` says when to try again, when known.
 */
export class LockUnavailableError extends WardenError<"LOCK_UNAVAILABLE"> {
  readonly code = ErrorCode.LockUnavailable;
  override readonly name = "LockUnavailableError";
  readonly retryAfterMs: number | null;

  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number | null }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }

  get details() {
    return { retryAfterMs: this.retryAfterMs };
  }
}
