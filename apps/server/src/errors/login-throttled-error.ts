import { ServerError } from "./server-error.js";

/** Too many login attempts for this user or address; retry after `retryAfterMs`. */
export class LoginThrottledError extends ServerError {
  readonly code = "LOGIN_THROTTLED" as const;
  override readonly name = "LoginThrottledError";

  constructor(readonly retryAfterMs: number) {
    super(`too many login attempts; retry in ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}
