import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** The resource is not registered (or is retired, or belongs to another tenant). */
export class UnknownResourceError extends WardenError {
  readonly code = ErrorCode.UnknownResource;
  override readonly name = "UnknownResourceError";

  constructor(readonly resource: string) {
    super(`unknown resource "${resource}"`);
  }
}
