import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * No tier can grant with cross-process exclusion right now (S5: fail-closed), or the
 * store refused to grant because its fencing epoch is not yet durable.
 */
export class LockUnavailableError extends WardenError {
  readonly code = ErrorCode.LockUnavailable;
  override readonly name = "LockUnavailableError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
