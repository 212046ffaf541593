import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** An input was malformed or out of range; nothing was changed. `field` names it. */
export class InvalidArgumentError extends WardenError {
  readonly code = ErrorCode.InvalidArgument;
  override readonly name = "InvalidArgumentError";

  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}
