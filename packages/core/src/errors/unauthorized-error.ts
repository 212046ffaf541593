import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** Missing, revoked or insufficient credentials for the call. */
export class UnauthorizedError extends WardenError {
  readonly code = ErrorCode.Unauthorized;
  override readonly name = "UnauthorizedError";

  constructor(message = "not authorized") {
    super(message);
  }
}
