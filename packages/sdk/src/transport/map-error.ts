import { TRPCClientError } from "@trpc/client";
import {
  InvalidArgumentError,
  LockUnavailableError,
  OutcomeUnknownError,
  UnauthorizedError,
  fromWire,
  isErrorCode,
  type QuotaExceededError,
  type WardenError,
  type UncertainOperation,
} from "@warden/contract";
import { ClientClosedError, TransportError } from "./transport-errors.js";

/**
 * What a failed call means for the caller:
 * - `answer`: the server answered with a typed refusal; nothing changed unless it says so.
 * - `wait-cancelled`: a blocking acquire was withdrawn (our cancelWait, or a server
 *   shutting down): not granted.
 * - `retry-later`: refused before any lock work (request-rate quota): not granted.
 * - `not-sent`: no connection; nothing happened.
 * - `unknown`: sent without a definite answer (reply lost, socket dropped, server error):
 *   it may have been applied (docs/design.md#no-replay-no-guess: report as unknown, never as done
 *   or not done).
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
  readonly details?: Readonly<Record<string, unknown>> | null;
  readonly fieldErrors?: Record<string, string[] | undefined> | null;
}

/** A server's typed refusal as it crosses the wire: the contract's code, details, message. */
export interface WireFailure {
  readonly code: unknown;
  readonly details: unknown;
  readonly message: string;
}

/**
 * The one place where server errors become the contract's typed errors. The server sends
 * Warden's code and its typed details (`data.wardenCode`, `data.details`, see
 * apps/server/src/trpc.ts); the contract's `fromWire` rebuilds the error from them —
 * never from the message. An error without a response shape never reached the server or
 * lost its reply.
 */
export function classifyFailure(error: unknown, context: CallContext): CallFailure {
  if (error instanceof ClientClosedError) return { kind: "unknown", cause: error };
  if (error instanceof TransportError) {
    return error.sent ? { kind: "unknown", cause: error } : { kind: "not-sent", cause: error };
  }
  if (!(error instanceof TRPCClientError)) return { kind: "unknown", cause: error };
  const data = (error.data ?? null) as ErrorData | null;
  if (data === null) return { kind: "unknown", cause: error };
  if (isErrorCode(data.wardenCode)) {
    return classifyWireFailure(
      { code: data.wardenCode, details: data.details, message: error.message },
      context,
      error,
    );
  }
  if (data.code === "BAD_REQUEST") {
    // Input validation (zod) from a server that sends no Warden code: it names the field.
    const field = Object.keys(data.fieldErrors ?? {})[0] ?? "input";
    const detail = data.fieldErrors?.[field]?.[0] ?? "invalid input";
    return answer(new InvalidArgumentError(field, detail));
  }
  if (data.code === "UNAUTHORIZED" || data.code === "FORBIDDEN") {
    return answer(new UnauthorizedError(error.message));
  }
  return { kind: "unknown", cause: error };
}

/**
 * What a typed refusal (code + details + message, from any transport) means for the
 * caller. Details the server left out are filled from what the SDK knew about the call.
 */
export function classifyWireFailure(
  wire: WireFailure,
  context: CallContext,
  cause: unknown = wire,
): CallFailure {
  if (!isErrorCode(wire.code)) return { kind: "unknown", cause };
  const sent =
    typeof wire.details === "object" && wire.details !== null
      ? (wire.details as Readonly<Record<string, unknown>>)
      : {};
  const details: Record<string, unknown> = {
    ...(context.resource === undefined ? {} : { resource: context.resource }),
    ...(context.lockId === undefined ? {} : { lockId: context.lockId }),
    ...(context.waitMs === undefined ? {} : { waitMs: context.waitMs }),
    operation: uncertain(context.operation),
    ...sent,
  };
  const typed = fromWire(wire.code, details, wire.message);
  if (typed === null) return { kind: "unknown", cause };
  switch (typed.code) {
    case "OUTCOME_UNKNOWN":
      return { kind: "unknown", cause };
    case "WAIT_CANCELLED":
      return { kind: "wait-cancelled" };
    case "QUOTA_EXCEEDED": {
      const retryAfterMs = (typed as QuotaExceededError).retryAfterMs;
      return {
        kind: "retry-later",
        retryAfterMs,
        error: new LockUnavailableError(wire.message, { cause, retryAfterMs, reason: "quota" }),
      };
    }
    case "REPLICATION_TIMEOUT":
      // The grant was undone: the key is not held by the caller.
      return answer(new LockUnavailableError(wire.message, { cause, reason: "replicas" }));
    case "LOCK_UNAVAILABLE":
      return answer(
        new LockUnavailableError(wire.message, {
          cause,
          retryAfterMs: (typed as LockUnavailableError).retryAfterMs,
          reason: (typed as LockUnavailableError).reason,
        }),
      );
    case "FORBIDDEN":
      // The SDK's surface has one error for "these credentials may not do this".
      return answer(new UnauthorizedError(wire.message));
    case "INVALID_ARGUMENT":
    case "UNKNOWN_RESOURCE":
    case "NOT_HOLDER":
    case "LEASE_LOST":
    case "LOCK_TIMEOUT":
    case "UNAUTHORIZED":
    case "STALE_FENCE":
    case "CONFLICT":
    case "LOGIN_THROTTLED":
      return answer(typed);
  }
}

/** The typed error a failure surfaces as when the caller has nothing better to say. */
export function failureToError(failure: CallFailure, context: CallContext): Error {
  switch (failure.kind) {
    case "answer":
      return failure.error;
    case "retry-later":
      return failure.error;
    case "wait-cancelled":
      return new LockUnavailableError(
        `${context.operation}: the server withdrew the wait (it is shutting down or the wait was cancelled); the lock was not granted — try again`,
        { reason: "wait-withdrawn" },
      );
    case "not-sent":
      return new LockUnavailableError(
        `${context.operation}: the Warden server is unreachable; nothing was sent — try again when it is back`,
        { cause: failure.cause, reason: "server-unreachable" },
      );
    case "unknown":
      return new OutcomeUnknownError(context.lockId ?? null, uncertain(context.operation), {
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
