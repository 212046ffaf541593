import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * The lease may have been lost: renewal failed, the renewal limit was reached, or the
 * local deadline passed. Stop writing under it (docs/design.md).
 */
export class LeaseLostError extends WardenError<"LEASE_LOST"> {
  readonly code = ErrorCode.LeaseLost;
  override readonly name = "LeaseLostError";

  constructor(
    readonly lockId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get details() {
    return { lockId: this.lockId };
  }
}
