import { ServerError } from "./server-error.js";

/** Authenticated, but the role, the origin or the credential kind may not do this. */
export class ForbiddenError extends ServerError {
  readonly code = "FORBIDDEN" as const;
  override readonly name = "ForbiddenError";
}
