import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** The resource is not registered (or is retired, or belongs to another tenant). */
export class UnknownResourceError extends WardenError<"UNKNOWN_RESOURCE"> {
  readonly code = ErrorCode.UnknownResource;
  override readonly name = "UnknownResourceError";

  constructor(readonly resource: string) {
    super(`unknown resource "${resource}": check the name, or register it first`);
  }

  get details() {
    return { resource: this.resource };
  }
}
