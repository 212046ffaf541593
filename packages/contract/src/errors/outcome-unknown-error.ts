import { ErrorCode } from "./error-code.js";
import type { UncertainOperation } from "./error-details.js";
import { WardenError } from "./warden-error.js";

export type { UncertainOperation } from "./error-details.js";

function describe(lockId: string | null, operation: UncertainOperation): string {
  switch (operation) {
    case "acquire":
      return lockId === null
        ? "the acquire's reply was lost, so it may or may not have been granted; treat the key as not held (a grant, if any, is released in the background) and acquire again"
        : `the acquire of lock ${lockId} lost its reply, so it may or may not have been granted; treat the key as not held (a grant, if any, is released in the background) and acquire again`;
    case "extend":
      return `the renewal of lock ${lockId ?? "(unknown)"} lost its reply, so the lease may have run out; stop writing under it`;
    case "release":
      return `the release of lock ${lockId ?? "(unknown)"} lost its reply; the lease ends by itself when it runs out`;
  }
}

/**
 * The store may or may not have applied the operation: its reply was lost (timeout,
 * dropped connection). Never treat an uncertain acquire as granted or as free: the store
 * releases `lockId` in the background, and the lease expires on its own otherwise. An
 * uncertain extend means the lease may be lost. `lockId` is `"unknown"` (and
 * `details.lockId` null) when an acquire's reply was lost before its id was known.
 */
export class OutcomeUnknownError extends WardenError<"OUTCOME_UNKNOWN"> {
  readonly code = ErrorCode.OutcomeUnknown;
  override readonly name = "OutcomeUnknownError";
  readonly lockId: string;

  constructor(
    lockId: string | null,
    readonly operation: UncertainOperation,
    options?: { cause?: unknown },
  ) {
    const known = lockId === null || lockId === "unknown" ? null : lockId;
    super(describe(known, operation), options);
    this.lockId = known ?? "unknown";
  }

  get details() {
    return { lockId: this.lockId === "unknown" ? null : this.lockId, operation: this.operation };
  }
}
