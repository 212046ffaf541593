import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * A grant was not acknowledged by `required` replicas in time (Redis `WAIT`); it has been
 * undone, so the key is not held by the caller.
 */
export class ReplicationTimeoutError extends WardenError {
  readonly code = ErrorCode.ReplicationTimeout;
  override readonly name = "ReplicationTimeoutError";

  constructor(
    readonly required: number,
    readonly acknowledged: number,
  ) {
    super(`grant acknowledged by ${acknowledged} of ${required} required replicas; undone`);
  }
}
