import { ErrorCode } from "./error-code.js";
import { WardenError } from "./warden-error.js";

/**
 * A fenced write was refused because a newer holder's fence is already recorded at the
 * resource. Stop and alert; never retry with the same fence.
 */
export class StaleFenceError extends WardenError {
  readonly code = ErrorCode.StaleFence;
  override readonly name = "StaleFenceError";

  constructor(
    readonly fence: string,
    readonly currentFence: string,
  ) {
    super(`fence ${fence} is older than the recorded ${currentFence}`);
  }
}
