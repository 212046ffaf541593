import type { ErrorCode } from "./error-code.js";

/**
 * Base of every error Warden throws on purpose. Callers branch on `code`, never on the
 * message; `cause` keeps the underlying driver error when there is one.
 */
export abstract class WardenError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
