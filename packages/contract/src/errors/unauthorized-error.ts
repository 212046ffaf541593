import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** Missing, revoked or insufficient credentials for the call. */
export class UnauthorizedError extends WardenError<"UNAUTHORIZED"> {
  readonly code = ErrorCode.Unauthorized;
  override readonly name = "UnauthorizedError";

  constructor(message = "not authorized: send a valid API key or log in") {
    super(message);
  }

  get details() {
    return {};
  }
}
