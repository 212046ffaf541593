import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** The caller spent its request-rate quota; nothing was done. Retry after `retryAfterMs`. */
export class QuotaExceededError extends WardenError<"QUOTA_EXCEEDED"> {
  readonly code = ErrorCode.QuotaExceeded;
  override readonly name = "QuotaExceededError";

  constructor(
    readonly retryAfterMs: number,
    message = `over the request-rate quota; nothing was done — retry in ${retryAfterMs} ms`,
  ) {
    super(message);
  }

  get details() {
    return { retryAfterMs: this.retryAfterMs };
  }
}
