import { InvalidArgumentError, LIMITS, validateLockKey } from "@warden/contract";
import { checkHolderId, checkMs } from "./check.js";
import { ACQUIRE_DEFAULTS, type AcquireOptions } from "./acquire-options.js";

/** The server's longest wait for one acquire, in ms. */
export const MAX_WAIT_MS = 300_000;

const DAY_MS = 86_400_000;

/** Validated {@link AcquireOptions} for one call. */
export interface ResolvedAcquire {
  readonly resource: string;
  readonly businessKey: string;
  readonly leaseMs: number | undefined;
  readonly waitMs: number;
  readonly signal: AbortSignal | undefined;
  readonly maxHoldMs: number | undefined;
  readonly ownerId: string | undefined;
}

/** Validates one call's arguments before anything is sent. */
export function resolveAcquire(
  resource: string,
  businessKey: string,
  options: AcquireOptions = {},
  forceWaitMs?: number,
): ResolvedAcquire {
  validateLockKey({ resource, businessKey });
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new InvalidArgumentError("signal", "must be an AbortSignal");
  }
  return {
    resource,
    businessKey,
    leaseMs: checkMs("leaseMs", options.leaseMs, 1, LIMITS.maxLeaseMs),
    waitMs:
      forceWaitMs ?? checkMs("waitMs", options.waitMs, 0, MAX_WAIT_MS) ?? ACQUIRE_DEFAULTS.waitMs,
    signal: options.signal,
    maxHoldMs: checkMs("maxHoldMs", options.maxHoldMs, 1, DAY_MS),
    ownerId: options.ownerId === undefined ? undefined : checkHolderId("ownerId", options.ownerId),
  };
}
