import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** A blocking acquire waited `waitMs` without being granted. */
export class LockTimeoutError extends WardenError {
  readonly code = ErrorCode.LockTimeout;
  override readonly name = "LockTimeoutError";

  constructor(readonly waitMs: number) {
    super(`lock not granted within ${waitMs} ms`);
  }
}
