import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * A fenced write was refused because a newer holder's fence is already recorded at the
 * resource. Stop and alert; never retry with the same fence.
 */
export class StaleFenceError extends WardenError<"STALE_FENCE"> {
  readonly code = ErrorCode.StaleFence;
  override readonly name = "StaleFenceError";

  constructor(
    readonly fence: string,
    readonly currentFence: string,
  ) {
    super(
      `the write with fence ${fence} was refused: a newer holder already wrote with fence ${currentFence}; stop, this lock was lost`,
    );
  }

  get details() {
    return { fence: this.fence, currentFence: this.currentFence };
  }
}
