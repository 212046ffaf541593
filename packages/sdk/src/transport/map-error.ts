import { TRPCClientError } from "@trpc/client";
import {
  InvalidArgumentError,
  LeaseLostError,
  LockTimeoutError,
  LockUnavailableError,
  NotHolderError,
  OutcomeUnknownError,
  StaleFenceError,
  UnauthorizedError,
  UnknownResourceError,
  type WardenError,
  type UncertainOperation,
} from "@warden/core";
import { ClientClosedError, TransportError } from "./transport-errors.js";

/**
 * What a failed call means for the caller:
 * - `answer`: the server answered with a typed refusal; nothing changed unless it says so.
 * - `wait-cancelled`: a blocking acquire was withdrawn (our cancelWait, or a server
 *   shutting down): not granted.
 * - `retry-later`: refused before any lock work (request-rate quota): not granted.
 * - `not-sent`: no connection; nothing happened.
 * - `unknown`: sent without a definite answer (reply lost, socket dropped, server error):
 *   it may have been applied (S8: report as unknown, never as done or not done).
 */
export type CallFailure =
  | { readonly kind: "answer"; readonly error: WardenError }
  | { readonly kind: "wait-cancelled" }
  | { readonly kind: "retry-later"; readonly retryAfterMs: number; readonly error: Error }
  | { readonly kind: "not-sent"; readonly cause: unknown }
  | { readonly kind: "unknown"; readonly cause: unknown };

/** What the SDK knew about the call, to rebuild the server's typed error faithfully. */
export interface CallContext {
  readonly operation: string;
  readonly resource?: string;
  readonly lockId?: string;
  readonly waitMs?: number;
}

interface ErrorData {
  readonly code?: string;
  readonly wardenCode?: string | null;
  readonly fieldErrors?: Record<string, string[] | undefined> | null;
  readonly retryAfterMs?: number | null;
}

/**
 * The one place where server errors become `@warden/core`'s typed errors. The server's
 * error formatter puts Warden's code in `data.wardenCode` (apps/server/src/trpc.ts); an
 * error without a response shape never reached the server or lost its reply.
 */
export function classifyFailure(error: unknown, context: CallContext): CallFailure {
  if (error instanceof ClientClosedError) return { kind: "unknown", cause: error };
  if (error instanceof TransportError) {
    return error.sent ? { kind: "unknown", cause: error } : { kind: "not-sent", cause: error };
  }
  if (!(error instanceof TRPCClientError)) return { kind: "unknown", cause: error };
  const data = (error.data ?? null) as ErrorData | null;
  if (data === null) return { kind: "unknown", cause: error };
  const message = error.message;
  switch (data.wardenCode ?? null) {
    case "INVALID_ARGUMENT":
      return answer(new InvalidArgumentError(fieldOf(message), afterField(message)));
    case "UNKNOWN_RESOURCE":
      return answer(new UnknownResourceError(context.resource ?? resourceOf(message)));
    case "NOT_HOLDER":
      return answer(
        new NotHolderError(
          context.lockId ?? "unknown",
          /another grant/.test(message) ? "other-holder" : "expired",
        ),
      );
    case "LEASE_LOST":
      return answer(new LeaseLostError(context.lockId ?? "unknown", message));
    case "LOCK_TIMEOUT":
      return answer(new LockTimeoutError(context.waitMs ?? 0));
    case "LOCK_UNAVAILABLE":
    case "REPLICATION_TIMEOUT":
      // A replication timeout undid the grant: the key is not held by the caller.
      return answer(new LockUnavailableError(message, { cause: error }));
    case "OUTCOME_UNKNOWN":
      return { kind: "unknown", cause: error };
    case "UNAUTHORIZED":
    case "FORBIDDEN":
      return answer(new UnauthorizedError(message));
    case "STALE_FENCE":
      return answer(new StaleFenceError("unknown", "unknown"));
    case "WAIT_CANCELLED":
      return { kind: "wait-cancelled" };
    case "QUOTA_EXCEEDED":
      return {
        kind: "retry-later",
        retryAfterMs: data.retryAfterMs ?? 1_000,
        error: new LockUnavailableError(message, { cause: error }),
      };
    case "CONFLICT":
    case "LOGIN_THROTTLED":
    case null:
    default:
      break;
  }
  if (data.code === "BAD_REQUEST") {
    // Input validation (zod) has no Warden code; it names the field.
    const field = Object.keys(data.fieldErrors ?? {})[0] ?? "input";
    const detail = data.fieldErrors?.[field]?.[0] ?? message;
    return answer(new InvalidArgumentError(field, detail));
  }
  if (data.code === "UNAUTHORIZED" || data.code === "FORBIDDEN") {
    return answer(new UnauthorizedError(message));
  }
  return { kind: "unknown", cause: error };
}

/** The typed error a failure surfaces as when the caller has nothing better to say. */
export function failureToError(failure: CallFailure, context: CallContext): Error {
  switch (failure.kind) {
    case "answer":
      return failure.error;
    case "retry-later":
      return failure.error;
    case "wait-cancelled":
      return new LockUnavailableError(`${context.operation}: the server withdrew the wait`);
    case "not-sent":
      return new LockUnavailableError(`${context.operation}: the Warden server is unreachable`, {
        cause: failure.cause,
      });
    case "unknown":
      return new OutcomeUnknownError(context.lockId ?? "unknown", uncertain(context.operation), {
        cause: failure.cause,
      });
  }
}

function uncertain(operation: string): UncertainOperation {
  return operation === "release" || operation === "extend" ? operation : "acquire";
}

function answer(error: WardenError): CallFailure {
  return { kind: "answer", error };
}

// InvalidArgumentError messages read "<field>: <message>".
function fieldOf(message: string): string {
  return /^([A-Za-z.]+): /.exec(message)?.[1] ?? "input";
}

function afterField(message: string): string {
  return message.replace(/^[A-Za-z.]+: /, "");
}

function resourceOf(message: string): string {
  return /"([^"]+)"/.exec(message)?.[1] ?? "unknown";
}
