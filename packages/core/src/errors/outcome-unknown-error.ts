import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/** The store operation whose reply was lost. */
export type UncertainOperation = "acquire" | "release" | "extend";

/**
 * The store may or may not have applied the operation: its reply was lost (timeout,
 * dropped connection). Never treat an uncertain acquire as granted or as free (S8): the
 * store releases `lockId` in the background, and the lease expires on its own otherwise.
 * An uncertain extend means the lease may be lost.
 */
export class OutcomeUnknownError extends WardenError {
  readonly code = ErrorCode.OutcomeUnknown;
  override readonly name = "OutcomeUnknownError";

  constructor(
    readonly lockId: string,
    readonly operation: UncertainOperation,
    options?: { cause?: unknown },
  ) {
    super(`outcome of ${operation} for lock ${lockId} is unknown`, options);
  }
}
