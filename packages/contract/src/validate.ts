import { InvalidArgumentError } from "./errors/invalid-argument-error.js";
import { LIMITS } from "./limits.js";
import { canonicalText, textProblem } from "./text.js";
import type { Holder, LockKey } from "./types.js";

// Resource names become part of Redis hash tags and metric labels: keep them boring.
const RESOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
const LOCK_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/**
 * Checks one identifier text and returns its canonical (NFC) form: non-empty, at most
 * `maxBytes` UTF-8 bytes once normalized, no control characters, line separators, `{`,
 * `}`, `|` or lone surrogates.
 */
function checkText(field: string, value: unknown, maxBytes: number): string {
  if (typeof value !== "string") throw new InvalidArgumentError(field, "must be a string");
  if (value.length === 0) throw new InvalidArgumentError(field, "must not be empty");
  const problem = textProblem(value);
  if (problem !== null) throw new InvalidArgumentError(field, problem);
  const canonical = canonicalText(value);
  const bytes = Buffer.byteLength(canonical, "utf8");
  if (bytes > maxBytes) {
    throw new InvalidArgumentError(field, `is ${bytes} bytes; at most ${maxBytes} allowed`);
  }
  return canonical;
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

/**
 * Checks a lock key: a valid resource and a 1..200-byte business key. Returns the key in
 * canonical form (the business key NFC-normalized): use the returned value, not the input.
 */
export function validateLockKey<K extends LockKey>(key: K): K {
  validateResource(key.resource);
  const businessKey = checkText("businessKey", key.businessKey, LIMITS.maxBusinessKeyBytes);
  return businessKey === key.businessKey ? key : { ...key, businessKey };
}

/**
 * Checks a holder: non-empty clientId and ownerId of at most 128 bytes each. Returns it in
 * canonical form (both NFC-normalized): use the returned value.
 */
export function validateHolder(holder: Holder): Holder {
  if (typeof holder !== "object" || holder === null) {
    throw new InvalidArgumentError("holder", "must be an object with clientId and ownerId");
  }
  const clientId = checkText("holder.clientId", holder.clientId, LIMITS.maxHolderIdBytes);
  const ownerId = checkText("holder.ownerId", holder.ownerId, LIMITS.maxHolderIdBytes);
  return clientId === holder.clientId && ownerId === holder.ownerId
    ? holder
    : { ...holder, clientId, ownerId };
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
