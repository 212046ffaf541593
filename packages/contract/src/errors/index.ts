export { ErrorCode } from "./error-code.js";
export type {
  ErrorDetails,
  ErrorDetailsByCode,
  NotHolderReason,
  UncertainOperation,
} from "./error-details.js";
export { WardenError } from "./warden-error.js";
export { InvalidArgumentError } from "./invalid-argument-error.js";
export { UnknownResourceError } from "./unknown-resource-error.js";
export { NotHolderError } from "./not-holder-error.js";
export { LockTimeoutError } from "./lock-timeout-error.js";
export {
  LockUnavailableError,
  LOCK_UNAVAILABLE_REASONS,
  type LockUnavailableReason,
} from "./lock-unavailable-error.js";
export { LeaseLostError } from "./lease-lost-error.js";
export { OutcomeUnknownError } from "./outcome-unknown-error.js";
export { ReplicationTimeoutError } from "./replication-timeout-error.js";
export { UnauthorizedError } from "./unauthorized-error.js";
export { StaleFenceError } from "./stale-fence-error.js";
export { ForbiddenError } from "./forbidden-error.js";
export { ConflictError } from "./conflict-error.js";
export { QuotaExceededError } from "./quota-exceeded-error.js";
export { LoginThrottledError } from "./login-throttled-error.js";
export { WaitCancelledError } from "./wait-cancelled-error.js";
export { toWire, fromWire, isErrorCode, type WireError } from "./wire.js";
