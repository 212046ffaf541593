/**
 * Stable machine-readable codes shared by every tier, the server and the SDK. A refusal
 * looks the same whether Redis, MySQL or the local store produced it.
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
} as const;

/** One of {@link ErrorCode}'s values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
