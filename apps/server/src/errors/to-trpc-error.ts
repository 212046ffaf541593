import { TRPCError } from "@trpc/server";
import { WardenError, type ErrorCode } from "@warden/contract";

type TRPCCode = TRPCError["code"];

// The one place where domain errors become tRPC codes. The error formatter (trpc.ts) adds
// the error's code and details to the reply; the SDK and the console rebuild the typed
// error from them with the contract's `fromWire`.
const BY_CODE: Readonly<Record<ErrorCode, TRPCCode>> = {
  INVALID_ARGUMENT: "BAD_REQUEST",
  UNKNOWN_RESOURCE: "NOT_FOUND",
  NOT_HOLDER: "PRECONDITION_FAILED",
  LEASE_LOST: "PRECONDITION_FAILED",
  LOCK_TIMEOUT: "TIMEOUT",
  LOCK_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  // The grant may or may not exist; the store cleans it up by lockId.
  OUTCOME_UNKNOWN: "SERVICE_UNAVAILABLE",
  // The grant was undone: the key is not held by the caller.
  REPLICATION_TIMEOUT: "SERVICE_UNAVAILABLE",
  UNAUTHORIZED: "UNAUTHORIZED",
  STALE_FENCE: "CONFLICT",
  FORBIDDEN: "FORBIDDEN",
  QUOTA_EXCEEDED: "TOO_MANY_REQUESTS",
  LOGIN_THROTTLED: "TOO_MANY_REQUESTS",
  CONFLICT: "CONFLICT",
  WAIT_CANCELLED: "CLIENT_CLOSED_REQUEST",
};

/** The domain code of an error, when it is one of Warden's. */
export function wardenCodeOf(error: unknown): ErrorCode | null {
  return error instanceof WardenError ? (error as WardenError).code : null;
}

/** The tRPC code a Warden error code answers with. */
export function trpcCodeOf(code: ErrorCode): TRPCCode {
  return BY_CODE[code];
}

/** Maps any thrown value to a TRPCError; unknown errors become INTERNAL_SERVER_ERROR. */
export function toTRPCError(error: unknown): TRPCError {
  if (error instanceof TRPCError) return error;
  const code = wardenCodeOf(error);
  if (code !== null) {
    return new TRPCError({ code: BY_CODE[code], message: (error as Error).message, cause: error });
  }
  return new TRPCError({
    code: "INTERNAL_SERVER_ERROR",
    message: "internal error",
    cause: error instanceof Error ? error : new Error(String(error)),
  });
}
