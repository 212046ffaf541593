import { ServerError } from "../errors/server-error.js";

/** A blocking acquire was withdrawn (lock.cancelWait, closed connection, shutdown). */
export class WaitCancelledError extends ServerError {
  readonly code = "WAIT_CANCELLED" as const;
  override readonly name = "WaitCancelledError";

  constructor(readonly waitId: string | null) {
    super(waitId === null ? "wait cancelled" : `wait ${waitId} cancelled`);
  }
}
