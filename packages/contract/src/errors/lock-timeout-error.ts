import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** A blocking acquire waited `waitMs` without being granted. */
export class LockTimeoutError extends WardenError<"LOCK_TIMEOUT"> {
  readonly code = ErrorCode.LockTimeout;
  override readonly name = "LockTimeoutError";

  constructor(readonly waitMs: number) {
    super(
      `the lock was not granted within ${waitMs} ms: another holder kept it; wait longer or try again later`,
    );
  }

  get details() {
    return { waitMs: this.waitMs };
  }
}
