import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * A grant was not acknowledged by `required` replicas in time (Redis `WAIT`); it has been
 * undone, so the key is not held by the caller.
 */
export class ReplicationTimeoutError extends WardenError<"REPLICATION_TIMEOUT"> {
  readonly code = ErrorCode.ReplicationTimeout;
  override readonly name = "ReplicationTimeoutError";

  constructor(
    readonly required: number,
    readonly acknowledged: number,
  ) {
    super(
      `the grant reached ${acknowledged} of the ${required} replicas the resource requires in time, so it was undone; the key is not held — try again`,
    );
  }

  get details() {
    return { required: this.required, acknowledged: this.acknowledged };
  }
}
