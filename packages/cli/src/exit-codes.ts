import { WardenError } from "@warden/sdk";

/**
 * Exit codes of `warden` besides the command's own status (README.md, "Exit codes").
 * Numbers follow BSD sysexits where one fits.
 */
export const EXIT = Object.freeze({
  ok: 0,
  /** Bad command line (unknown flag, missing argument, bad duration). */
  usage: 64,
  /** The server refused the input: unknown resource, a value out of its range. */
  dataError: 65,
  /** The server cannot be reached, or no tier can grant with exclusion now. */
  unavailable: 69,
  /** Something unexpected, including an acquire whose outcome is unknown. */
  internal: 70,
  /** `warden lock`: the lock is held by someone else (or the wait ran out). */
  notAcquired: 75,
  /** `warden lock`: the lease was lost while the command ran; the command was stopped. */
  leaseLost: 76,
  /** The API key or operator login was refused, or the operator's role is too weak. */
  unauthorized: 77,
  /** `warden lock`: the command could not be executed (shell convention). */
  cannotExecute: 126,
  /** `warden lock`: the command was not found (shell convention). */
  notFound: 127,
});

/** A command line that cannot be run; `message` says why. */
export class UsageError extends Error {}

/** An error the CLI reports with a given exit code and no stack. */
export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const BY_CODE: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: EXIT.dataError,
  UNKNOWN_RESOURCE: EXIT.dataError,
  NOT_FOUND: EXIT.dataError,
  BAD_REQUEST: EXIT.dataError,
  CONFLICT: EXIT.dataError,
  LOCK_TIMEOUT: EXIT.notAcquired,
  LOCK_UNAVAILABLE: EXIT.unavailable,
  QUOTA_EXCEEDED: EXIT.unavailable,
  REPLICATION_TIMEOUT: EXIT.unavailable,
  LEASE_LOST: EXIT.leaseLost,
  UNAUTHORIZED: EXIT.unauthorized,
  FORBIDDEN: EXIT.unauthorized,
  LOGIN_THROTTLED: EXIT.unauthorized,
  TOO_MANY_REQUESTS: EXIT.unavailable,
};

/** The exit code for an error thrown by the SDK, the HTTP client or the CLI itself. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof WardenError) {
    const code = String((error as { code: unknown }).code);
    return BY_CODE[code] ?? EXIT.internal;
  }
  const code = wireCodeOf(error);
  if (code !== null) return BY_CODE[code] ?? EXIT.internal;
  if (isConnectionFailure(error)) return EXIT.unavailable;
  return EXIT.internal;
}

/** `data.wardenCode` (else tRPC's `data.code`) of a tRPC client error; null otherwise. */
export function wireCodeOf(error: unknown): string | null {
  const data = (error as { data?: { wardenCode?: unknown; code?: unknown } } | null)?.data;
  if (typeof data?.wardenCode === "string") return data.wardenCode;
  if (typeof data?.code === "string") return data.code;
  return null;
}

/** The code of the first connection failure in `error`'s cause chain (e.g. ECONNREFUSED). */
export function connectionFailureCode(error: unknown): string | null {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$|^UND_ERR_/.test(code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

/** True for fetch's "could not connect" family (refused, reset, DNS, timeout). */
export function isConnectionFailure(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|UND_ERR_\w+)$/.test(
        code,
      )
    ) {
      return true;
    }
    if (cause instanceof TypeError && cause.message === "fetch failed") return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
