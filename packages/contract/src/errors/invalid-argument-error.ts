import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * An input was malformed or out of range; nothing was changed. `field` names it and
 * `reason` says what is wrong; the message reads `<field>: <reason>`.
 */
export class InvalidArgumentError extends WardenError<"INVALID_ARGUMENT"> {
  readonly code = ErrorCode.InvalidArgument;
  override readonly name = "InvalidArgumentError";

  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }

  get details() {
    return { field: this.field, reason: this.reason };
  }
}
