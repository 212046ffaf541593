import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * The store may or may not have granted: the reply was lost (timeout, dropped connection).
 * Never treat this as granted or as free (S8); the store releases `lockId` in the
 * background, and the lease expires on its own otherwise.
 */
export class OutcomeUnknownError extends WardenError {
  readonly code = ErrorCode.OutcomeUnknown;
  override readonly name = "OutcomeUnknownError";

  constructor(
    readonly lockId: string,
    options?: { cause?: unknown },
  ) {
    super(`outcome of grant ${lockId} is unknown; it is being released by lockId`, options);
  }
}
