import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * A blocking acquire was withdrawn (lock.cancelWait, closed connection, server shutdown)
 * before it was granted: the key is not held by the caller.
 */
export class WaitCancelledError extends WardenError<"WAIT_CANCELLED"> {
  readonly code = ErrorCode.WaitCancelled;
  override readonly name = "WaitCancelledError";

  constructor(readonly waitId: string | null) {
    super(
      waitId === null
        ? "the wait was withdrawn before the lock was granted; the key is not held"
        : `wait ${waitId} was withdrawn before the lock was granted; the key is not held`,
    );
  }

  get details() {
    return { waitId: this.waitId };
  }
}
