import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LIMITS } from "../store/limits.js";
import type { Holder, LockKey } from "../store/types.js";

// Resource names become part of Redis hash tags and metric labels: keep them boring.
const RESOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
// Braces would move a key's cluster hash tag; `|` separates fields of a stored lease;
// control characters break logs and the console.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_TEXT = /[\u0000-\u001f\u007f{}|]/;
const LOCK_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

function checkText(field: string, value: unknown, maxBytes: number): string {
  if (typeof value !== "string") throw new InvalidArgumentError(field, "must be a string");
  if (value.length === 0) throw new InvalidArgumentError(field, "must not be empty");
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > maxBytes) {
    throw new InvalidArgumentError(field, `is ${bytes} bytes; at most ${maxBytes} allowed`);
  }
  if (FORBIDDEN_IN_TEXT.test(value)) {
    throw new InvalidArgumentError(field, "must not contain control characters, '{', '}' or '|'");
  }
  return value;
}

/** Checks a resource name: 1..128 bytes of letters, digits and `:._-`. */
export function validateResource(value: unknown): string {
  const name = checkText("resource", value, LIMITS.maxResourceBytes);
  if (!RESOURCE_PATTERN.test(name)) {
    throw new InvalidArgumentError(
      "resource",
      "must start with a letter or digit and contain only letters, digits and ':._-'",
    );
  }
  return name;
}

/** Checks a lock key: a valid resource and a 1..200-byte business key. */
export function validateLockKey(key: LockKey): LockKey {
  validateResource(key.resource);
  checkText("businessKey", key.businessKey, LIMITS.maxBusinessKeyBytes);
  return key;
}

/** Checks a holder: non-empty clientId and ownerId of at most 128 bytes each. */
export function validateHolder(holder: Holder): Holder {
  if (typeof holder !== "object" || holder === null) {
    throw new InvalidArgumentError("holder", "must be an object with clientId and ownerId");
  }
  checkText("holder.clientId", holder.clientId, LIMITS.maxHolderIdBytes);
  checkText("holder.ownerId", holder.ownerId, LIMITS.maxHolderIdBytes);
  return holder;
}

/**
 * Checks a lease: an integer number of ms in 1..`cap` (at most 60 000). Rejects rather
 * than clamps, so a caller's unit mistake (seconds for ms) surfaces at once.
 */
export function validateLeaseMs(value: unknown, capMs: number = LIMITS.maxLeaseMs): number {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new InvalidArgumentError("leaseMs", "must be an integer number of milliseconds");
  }
  if (value <= 0) throw new InvalidArgumentError("leaseMs", "must be greater than 0");
  const cap = Math.min(capMs, LIMITS.maxLeaseMs);
  if (value > cap) throw new InvalidArgumentError("leaseMs", `must be at most ${cap} ms`);
  return value;
}

/** Checks a lockId as Warden issues them: 22 characters of base64url. */
export function validateLockId(value: unknown): string {
  if (typeof value !== "string" || !LOCK_ID_PATTERN.test(value)) {
    throw new InvalidArgumentError("lockId", "must be a 22-character lock id issued by Warden");
  }
  return value;
}

/** Checks a replica count for `WAIT`: an integer in 0..16. */
export function validateWaitReplicas(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError("waitReplicas", "must be a non-negative integer");
  }
  if (value > LIMITS.maxWaitReplicas) {
    throw new InvalidArgumentError("waitReplicas", `must be at most ${LIMITS.maxWaitReplicas}`);
  }
  return value;
}

/** Checks a page size: an integer in 1..1000, default 100. */
export function validatePageSize(value: unknown): number {
  if (value === undefined) return 100;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError("limit", "must be a positive integer");
  }
  if (value > LIMITS.maxPageSize) {
    throw new InvalidArgumentError("limit", `must be at most ${LIMITS.maxPageSize}`);
  }
  return value;
}
