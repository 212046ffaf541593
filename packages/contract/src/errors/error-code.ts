/**
 * Stable machine-readable codes shared by every tier, the server, the SDK and the
 * console. A refusal looks the same whether Redis, MySQL or the local store produced it.
 * The last five are the server's own (policy, quotas, waits); they cross the wire the
 * same way.
 */
export const ErrorCode = {
  InvalidArgument: "INVALID_ARGUMENT",
  UnknownResource: "UNKNOWN_RESOURCE",
  NotHolder: "NOT_HOLDER",
  LockTimeout: "LOCK_TIMEOUT",
  LockUnavailable: "LOCK_UNAVAILABLE",
  LeaseLost: "LEASE_LOST",
  OutcomeUnknown: "OUTCOME_UNKNOWN",
  ReplicationTimeout: "REPLICATION_TIMEOUT",
  Unauthorized: "UNAUTHORIZED",
  StaleFence: "STALE_FENCE",
  Forbidden: "FORBIDDEN",
  QuotaExceeded: "QUOTA_EXCEEDED",
  Conflict: "CONFLICT",
  LoginThrottled: "LOGIN_THROTTLED",
  WaitCancelled: "WAIT_CANCELLED",
} as const;

/** One of {@link ErrorCode}'s values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
