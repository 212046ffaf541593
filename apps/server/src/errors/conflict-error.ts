import { ServerError } from "./server-error.js";

/** The request contends with the current state (a name taken, live locks on a retiring resource). */
export class ConflictError extends ServerError {
  readonly code = "CONFLICT" as const;
  override readonly name = "ConflictError";
}
