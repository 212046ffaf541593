import { ErrorCode } from "./error-code.js";
import type { NotHolderReason } from "./error-details.js";
import { WardenError } from "./warden-error.js";

export type { NotHolderReason } from "./error-details.js";

/** Release or extend presented a lockId that does not hold the key; the lock is untouched. */
export class NotHolderError extends WardenError<"NOT_HOLDER"> {
  readonly code = ErrorCode.NotHolder;
  override readonly name = "NotHolderError";

  constructor(
    readonly lockId: string,
    readonly reason: NotHolderReason,
  ) {
    super(
      reason === "expired"
        ? `lock ${lockId} is no longer held: its lease ran out or it was released; acquire the key again before writing`
        : `lock ${lockId} no longer holds this key: another holder was granted it; acquire the key again before writing`,
    );
  }

  get details() {
    return { lockId: this.lockId, reason: this.reason };
  }
}
