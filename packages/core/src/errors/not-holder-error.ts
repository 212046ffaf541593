import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * Why a release or extend was refused: the lease is gone (expired or released), or the
 * key is now held under another lockId.
 */
export type NotHolderReason = "expired" | "other-holder";

/** Release or extend presented a lockId that does not hold the key; the lock is untouched. */
export class NotHolderError extends WardenError {
  readonly code = ErrorCode.NotHolder;
  override readonly name = "NotHolderError";

  constructor(
    readonly lockId: string,
    readonly reason: NotHolderReason,
  ) {
    super(
      reason === "expired"
        ? `lock ${lockId} is no longer held (expired or released)`
        : `lock ${lockId} does not hold this key; another grant does`,
    );
  }
}
