import { ServerError } from "./server-error.js";

/** The tenant spent its request-rate quota; retry after `retryAfterMs`. */
export class QuotaExceededError extends ServerError {
  readonly code = "QUOTA_EXCEEDED" as const;
  override readonly name = "QuotaExceededError";

  constructor(
    readonly tenantId: string,
    readonly retryAfterMs: number,
  ) {
    super(`tenant ${tenantId} is over its request-rate quota; retry in ${retryAfterMs} ms`);
  }
}
