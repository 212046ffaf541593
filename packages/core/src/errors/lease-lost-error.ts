import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** The lease may have been lost: renewal failed or the local deadline passed (S4). */
export class LeaseLostError extends WardenError {
  readonly code = ErrorCode.LeaseLost;
  override readonly name = "LeaseLostError";

  constructor(
    readonly lockId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
