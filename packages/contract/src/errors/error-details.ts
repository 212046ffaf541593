import type { ErrorCode } from "./error-code.js";
import type { LockUnavailableReason } from "./lock-unavailable-error.js";

/**
 * Why a release or extend was refused: the lease is gone (expired or released), or the
 * key is now held under another lockId.
 */
export type NotHolderReason = "expired" | "other-holder";

/** The store operation whose reply was lost. */
export type UncertainOperation = "acquire" | "release" | "extend";

type NoDetails = Readonly<Record<string, never>>;

/**
 * What each error code carries besides its message: the facts a caller branches on, so
 * that nothing ever parses message text. These cross the wire as they are.
 */
export interface ErrorDetailsByCode {
  /** `field` is the input's path (`leaseMs`, `holder.clientId`); `reason` says what is wrong. */
  readonly INVALID_ARGUMENT: { readonly field: string; readonly reason: string };
  readonly UNKNOWN_RESOURCE: { readonly resource: string };
  readonly NOT_HOLDER: { readonly lockId: string; readonly reason: NotHolderReason };
  /** How long the acquire waited. */
  readonly LOCK_TIMEOUT: { readonly waitMs: number };
  /** When the caller may try again, if the refusal says (null when unknown), and why. */
  readonly LOCK_UNAVAILABLE: {
    readonly retryAfterMs: number | null;
    readonly reason: LockUnavailableReason;
  };
  readonly LEASE_LOST: { readonly lockId: string };
  /** `lockId` is null when the acquire's reply was lost before the id was known. */
  readonly OUTCOME_UNKNOWN: {
    readonly lockId: string | null;
    readonly operation: UncertainOperation;
  };
  readonly REPLICATION_TIMEOUT: { readonly required: number; readonly acknowledged: number };
  readonly UNAUTHORIZED: NoDetails;
  readonly STALE_FENCE: { readonly fence: string; readonly currentFence: string };
  readonly FORBIDDEN: NoDetails;
  readonly QUOTA_EXCEEDED: { readonly retryAfterMs: number };
  readonly CONFLICT: NoDetails;
  readonly LOGIN_THROTTLED: { readonly retryAfterMs: number };
  /** The waitId the blocking acquire was sent with, if any. */
  readonly WAIT_CANCELLED: { readonly waitId: string | null };
}

/** The details of one code. */
export type ErrorDetails<C extends ErrorCode = ErrorCode> = ErrorDetailsByCode[C];
