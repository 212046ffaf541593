/** Codes of the errors the server adds to `@warden/core`'s. */
export type ServerErrorCode =
  | "FORBIDDEN"
  | "QUOTA_EXCEEDED"
  | "CONFLICT"
  | "LOGIN_THROTTLED"
  | "WAIT_CANCELLED";

/** Base of the server's own typed errors; mapped to tRPC codes in to-trpc-error.ts. */
export abstract class ServerError extends Error {
  abstract readonly code: ServerErrorCode;
}
