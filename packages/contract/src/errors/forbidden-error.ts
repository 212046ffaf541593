import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** Authenticated, but the role, the origin or the credential kind may not do this. */
export class ForbiddenError extends WardenError<"FORBIDDEN"> {
  readonly code = ErrorCode.Forbidden;
  override readonly name = "ForbiddenError";

  get details() {
    return {};
  }
}
