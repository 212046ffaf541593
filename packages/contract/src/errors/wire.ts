import { ConflictError } from "./conflict-error.js";
import { ErrorCode } from "./error-code.js";
import type { ErrorDetailsByCode, NotHolderReason, UncertainOperation } from "./error-details.js";
import { ForbiddenError } from "./forbidden-error.js";
import { InvalidArgumentError } from "./invalid-argument-error.js";
import { LeaseLostError } from "./lease-lost-error.js";
import { LockTimeoutError } from "./lock-timeout-error.js";
import {
  LOCK_UNAVAILABLE_REASONS,
  LockUnavailableError,
  type LockUnavailableReason,
} from "./lock-unavailable-error.js";
import { LoginThrottledError } from "./login-throttled-error.js";
import { NotHolderError } from "./not-holder-error.js";
import { OutcomeUnknownError } from "./outcome-unknown-error.js";
import { QuotaExceededError } from "./quota-exceeded-error.js";
import { ReplicationTimeoutError } from "./replication-timeout-error.js";
import { StaleFenceError } from "./stale-fence-error.js";
import { UnauthorizedError } from "./unauthorized-error.js";
import { UnknownResourceError } from "./unknown-resource-error.js";
import { WaitCancelledError } from "./wait-cancelled-error.js";
import { WardenError } from "./warden-error.js";

/** A typed error as it crosses the wire: its code, its details and its message. */
export interface WireError<C extends ErrorCode = ErrorCode> {
  readonly code: C;
  readonly details: ErrorDetailsByCode[C];
  readonly message: string;
}

const CODES = new Set<string>(Object.values(ErrorCode));

/** True when `value` is one of Warden's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && CODES.has(value);
}

/** The wire form of a Warden error; null for anything else (which must not leak). */
export function toWire(error: unknown): WireError | null {
  if (!(error instanceof WardenError)) return null;
  const known = error as WardenError;
  return { code: known.code, details: known.details, message: known.message };
}

// The wire is untrusted input: a missing or mistyped detail falls back to a neutral
// value instead of throwing, so a typed error still comes out.
type Bag = Readonly<Record<string, unknown>>;

function text(bag: Bag, name: string, fallback: string): string {
  const value = bag[name];
  return typeof value === "string" ? value : fallback;
}

function textOrNull(bag: Bag, name: string): string | null {
  const value = bag[name];
  return typeof value === "string" ? value : null;
}

function count(bag: Bag, name: string, fallback: number): number {
  const value = bag[name];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function countOrNull(bag: Bag, name: string): number | null {
  const value = bag[name];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function notHolderReason(bag: Bag): NotHolderReason {
  return bag["reason"] === "other-holder" ? "other-holder" : "expired";
}

const UNAVAILABLE_REASONS = new Set<string>(LOCK_UNAVAILABLE_REASONS);

// A server that predates `reason`, or one that sends a reason this client does not know,
// reads as the generic one: a client older than `contended` reads it as `store-unavailable`,
// whose advice is the same (back off and retry).
function unavailableReason(bag: Bag): LockUnavailableReason {
  const value = bag["reason"];
  return typeof value === "string" && UNAVAILABLE_REASONS.has(value)
    ? (value as LockUnavailableReason)
    : "store-unavailable";
}

function operation(bag: Bag): UncertainOperation {
  const value = bag["operation"];
  return value === "release" || value === "extend" ? value : "acquire";
}

/**
 * Rebuilds the typed error a server sent as `code` + `details` (+ `message` for the codes
 * whose message is free text). Null when `code` is not one of Warden's.
 */
export function fromWire(code: unknown, details: unknown, message: string): WardenError | null {
  if (!isErrorCode(code)) return null;
  const bag: Bag = typeof details === "object" && details !== null ? (details as Bag) : {};
  switch (code) {
    case "INVALID_ARGUMENT":
      return new InvalidArgumentError(text(bag, "field", "input"), text(bag, "reason", message));
    case "UNKNOWN_RESOURCE":
      return new UnknownResourceError(text(bag, "resource", "unknown"));
    case "NOT_HOLDER":
      return new NotHolderError(text(bag, "lockId", "unknown"), notHolderReason(bag));
    case "LOCK_TIMEOUT":
      return new LockTimeoutError(count(bag, "waitMs", 0));
    case "LOCK_UNAVAILABLE":
      return new LockUnavailableError(message, {
        retryAfterMs: countOrNull(bag, "retryAfterMs"),
        reason: unavailableReason(bag),
      });
    case "LEASE_LOST":
      return new LeaseLostError(text(bag, "lockId", "unknown"), message);
    case "OUTCOME_UNKNOWN":
      return new OutcomeUnknownError(textOrNull(bag, "lockId"), operation(bag));
    case "REPLICATION_TIMEOUT":
      return new ReplicationTimeoutError(count(bag, "required", 0), count(bag, "acknowledged", 0));
    case "UNAUTHORIZED":
      return new UnauthorizedError(message);
    case "STALE_FENCE":
      return new StaleFenceError(
        text(bag, "fence", "unknown"),
        text(bag, "currentFence", "unknown"),
      );
    case "FORBIDDEN":
      return new ForbiddenError(message);
    case "QUOTA_EXCEEDED":
      return new QuotaExceededError(count(bag, "retryAfterMs", 1_000), message);
    case "CONFLICT":
      return new ConflictError(message);
    case "LOGIN_THROTTLED":
      return new LoginThrottledError(count(bag, "retryAfterMs", 1_000));
    case "WAIT_CANCELLED":
      return new WaitCancelledError(textOrNull(bag, "waitId"));
  }
}
