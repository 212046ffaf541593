import { API_LIMITS } from "@warden/contract/wire";
import type { AcquireInput, ExtendInput, ReleaseInput } from "@warden/contract/wire";

/*
 * A fast path in front of the wire contract's zod schemas, for the hot lock commands only
 * (docs/decisions/0065-batched-lock-protocol.md: zod was ~8 % of the server's CPU per
 * cycle). It accepts only inputs that are *plainly* valid — ASCII identifiers without any
 * character the contract forbids, integers in range — for which the schema's output is
 * the input itself (ASCII needs no NFC; UTF-8 bytes = characters), and returns the same
 * object the schema would (unknown keys dropped). Everything else returns null and goes
 * through the schema, which gives the typed error or the canonical form.
 */

const RESOURCE = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
const LOCK_ID = /^[A-Za-z0-9_-]{22}$/;
const WAIT_ID = /^[A-Za-z0-9_-]{8,64}$/;
// Printable ASCII except `{`, `|`, `}` (and nothing else): what no identifier rule refuses.
const PLAIN_TEXT = /^[\u0020-\u007a~]+$/;

function plainText(value: unknown, maxBytes: number): value is string {
  return (
    typeof value === "string" &&
    value.length > 0 &&
    value.length <= maxBytes &&
    PLAIN_TEXT.test(value)
  );
}

function resourceName(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length > 0 &&
    value.length <= API_LIMITS.maxResourceBytes &&
    RESOURCE.test(value)
  );
}

function intIn(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

function tier(value: unknown): value is "redis" | "mysql" | "local" {
  return value === "redis" || value === "mysql" || value === "local";
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** `acquire`'s input when plainly valid, else null (ask the schema). */
export function plainAcquire(raw: unknown): AcquireInput | null {
  const input = record(raw);
  if (!input) return null;
  const { resource, businessKey, ownerId, leaseMs, waitMs, waitId } = input;
  if (!resourceName(resource)) return null;
  if (!plainText(businessKey, API_LIMITS.maxBusinessKeyBytes)) return null;
  if (!plainText(ownerId, API_LIMITS.maxHolderIdBytes)) return null;
  if (leaseMs !== undefined && !intIn(leaseMs, 1, API_LIMITS.maxLeaseMs)) return null;
  if (waitMs !== undefined && !intIn(waitMs, 0, API_LIMITS.maxWaitMs)) return null;
  if (waitId !== undefined && !(typeof waitId === "string" && WAIT_ID.test(waitId))) return null;
  // Built field by field: three conditional spreads cost three objects per acquire.
  const plain: { -readonly [K in keyof AcquireInput]: AcquireInput[K] } = {
    resource,
    businessKey,
    ownerId,
  };
  if (leaseMs !== undefined) plain.leaseMs = leaseMs;
  if (waitMs !== undefined) plain.waitMs = waitMs;
  if (waitId !== undefined) plain.waitId = waitId;
  return plain;
}

/**
 * `semaphore.acquire`'s input when plainly valid, else null: the lock's acquire fields plus
 * `permits`, an integer in 1..maxPermits (the semaphore schema's bounds). The read-write
 * lock's acquire, release and extend and the semaphore's release and extend take exactly
 * the lock's fields, so the functions above serve them as they are (docs/decisions/0198).
 */
export function plainSemaphoreAcquire(
  raw: unknown,
  maxPermits: number,
): (AcquireInput & { permits?: number }) | null {
  const plain: (AcquireInput & { permits?: number }) | null = plainAcquire(raw);
  if (plain === null) return null;
  const { permits } = raw as Record<string, unknown>;
  if (permits === undefined) return plain;
  if (!intIn(permits, 1, maxPermits)) return null;
  plain.permits = permits;
  return plain;
}

/** `release`'s input when plainly valid, else null. */
export function plainRelease(raw: unknown): ReleaseInput | null {
  const input = record(raw);
  if (!input) return null;
  const { resource, businessKey, lockId, tier: grantTier } = input;
  if (!resourceName(resource)) return null;
  if (!plainText(businessKey, API_LIMITS.maxBusinessKeyBytes)) return null;
  if (!(typeof lockId === "string" && LOCK_ID.test(lockId)) || !tier(grantTier)) return null;
  return { resource, businessKey, lockId, tier: grantTier };
}

/** `extend`'s input (one lease of `renew`) when plainly valid, else null. */
export function plainExtend(raw: unknown): ExtendInput | null {
  const input = record(raw);
  if (!input) return null;
  const release = plainRelease(input);
  const { leaseMs } = input;
  if (!release || (leaseMs !== undefined && !intIn(leaseMs, 1, API_LIMITS.maxLeaseMs))) {
    return null;
  }
  if (leaseMs === undefined) return release;
  return {
    resource: release.resource,
    businessKey: release.businessKey,
    lockId: release.lockId,
    tier: release.tier,
    leaseMs,
  };
}
