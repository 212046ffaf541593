import type { ErrorCode } from "@warden/contract";
import type { RestOnlyCode } from "./schemas.js";

/**
 * The HTTP status of each error code of the HTTP/JSON lock API
 * (docs/decisions/0120-http-json-lock-api.md). A refused try is not an error: it is a 200
 * with `granted: false`. 409 means "the lease is not what you think" (not the holder,
 * stale fence, a cancelled wait); 423 means "still locked after waiting"; 503 and 429
 * carry `Retry-After` when the details say when.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode | RestOnlyCode, number>> = {
  INVALID_ARGUMENT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  UNKNOWN_RESOURCE: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_HOLDER: 409,
  LEASE_LOST: 409,
  STALE_FENCE: 409,
  CONFLICT: 409,
  // Withdrawn by DELETE /v1/waits/{waitId}; a wait ended by a shutdown answers 503 instead.
  WAIT_CANCELLED: 409,
  LOCK_TIMEOUT: 423,
  QUOTA_EXCEEDED: 429,
  LOGIN_THROTTLED: 429,
  INTERNAL: 500,
  LOCK_UNAVAILABLE: 503,
  // The grant may or may not exist: treat the key as not held and acquire again.
  OUTCOME_UNKNOWN: 503,
  // The grant was undone: the key is not held by the caller.
  REPLICATION_TIMEOUT: 503,
};
