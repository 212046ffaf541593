/** What the console needs from a failed tRPC call, read structurally from any error. */
export interface ErrorInfo {
  /** tRPC code, e.g. `UNAUTHORIZED`, `FORBIDDEN`, `CONFLICT`; null for a network failure. */
  readonly code: string | null;
  readonly message: string;
  /** Per-field messages of an invalid input (the server's error formatter adds them). */
  readonly fieldErrors: Record<string, string[] | undefined> | null;
  /** Warden's error code (`INVALID_ARGUMENT`, `NOT_HOLDER`…); null when there is none. */
  readonly wardenCode: string | null;
  /**
   * The code's typed details (`ErrorDetailsByCode` in @warden/contract), e.g. `field` and
   * `reason` of an invalid argument: read these, never the message.
   */
  readonly details: Readonly<Record<string, unknown>> | null;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
}

/** Reads code, message, field errors and details of a TRPCClientError (or anything else thrown). */
export function errorInfo(error: unknown): ErrorInfo {
  const data = record(record(error)?.data);
  const code = typeof data?.code === "string" ? data.code : null;
  const fieldErrors = record(data?.fieldErrors) as ErrorInfo["fieldErrors"];
  const message = error instanceof Error ? error.message : String(error);
  const wardenCode = typeof data?.wardenCode === "string" ? data.wardenCode : null;
  return { code, message, fieldErrors, wardenCode, details: record(data?.details) };
}

/** True when the session is missing or expired: the console sends the user to log in. */
export function isUnauthorized(error: unknown): boolean {
  return errorInfo(error).code === "UNAUTHORIZED";
}

/** Whether retrying could help: not for auth, permission or input errors. */
export function isRetryable(error: unknown): boolean {
  const code = errorInfo(error).code;
  return ![
    "UNAUTHORIZED",
    "FORBIDDEN",
    "BAD_REQUEST",
    "NOT_FOUND",
    "CONFLICT",
    "PRECONDITION_FAILED",
  ].includes(code ?? "");
}
