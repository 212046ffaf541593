import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** The request contends with the current state (a name taken, live locks on a retiring resource). */
export class ConflictError extends WardenError<"CONFLICT"> {
  readonly code = ErrorCode.Conflict;
  override readonly name = "ConflictError";

  get details() {
    return {};
  }
}
