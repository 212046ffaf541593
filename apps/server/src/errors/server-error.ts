import type { ErrorCode } from "@warden/contract";

/**
 * Codes the server raises on top of the lock engine's (policy, quotas, waits). Their
 * errors are `@warden/contract`'s typed errors like every other, so they cross the wire
 * as code + details the same way (docs/decisions/0060-wire-contract-and-error-details.md).
 */
export type ServerErrorCode = Extract<
  ErrorCode,
  "FORBIDDEN" | "QUOTA_EXCEEDED" | "CONFLICT" | "LOGIN_THROTTLED" | "WAIT_CANCELLED"
>;
