import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** Too many login attempts for this user or address; retry after `retryAfterMs`. */
export class LoginThrottledError extends WardenError<"LOGIN_THROTTLED"> {
  readonly code = ErrorCode.LoginThrottled;
  override readonly name = "LoginThrottledError";

  constructor(readonly retryAfterMs: number) {
    super(`too many login attempts; try again in ${Math.ceil(retryAfterMs / 1000)} s`);
  }

  get details() {
    return { retryAfterMs: this.retryAfterMs };
  }
}
