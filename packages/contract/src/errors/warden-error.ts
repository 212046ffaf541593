import type { ErrorCode } from "./error-code.js";
import type { ErrorDetailsByCode } from "./error-details.js";

/**
 * Base of every error Warden throws on purpose. Callers branch on `code` and read
 * `details`, never the message; `cause` keeps the underlying driver error when there is one.
 */
export abstract class WardenError<C extends ErrorCode = ErrorCode> extends Error {
  abstract readonly code: C;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** The facts behind the error, by code (see {@link ErrorDetailsByCode}). */
  abstract get details(): ErrorDetailsByCode[C];
}
