import { z } from "zod";
import { canonicalText, textProblem, utf8Length } from "../text.js";
import { API_LIMITS } from "./limits.js";

const RESOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
const LOCK_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
const FENCE_PATTERN = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;
/**
 * An identifier text (business key, clientId, ownerId): NFC-normalized first (so one name
 * has one form), then non-empty, at most `maxBytes` UTF-8 bytes, no control characters,
 * line separators, `{`, `}`, `|` or lone UTF-16 surrogates.
 */
export function boundedText(maxBytes: number) {
  return z
    .string()
    .min(1, "must not be empty")
    .superRefine((value, ctx) => {
      // Before normalizing: NFC would keep a lone surrogate, but say so plainly.
      const problem = textProblem(value);
      if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
    })
    .overwrite(canonicalText)
    .max(maxBytes, `must be at most ${maxBytes} bytes`)
    .refine((value) => utf8Length(value) <= maxBytes, `must be at most ${maxBytes} bytes`);
}

/** A resource name: 1..128 bytes of letters, digits and `:._-`, e.g. `order:settle`. */
export const resourceNameSchema = z
  .string()
  .min(1, "must not be empty")
  .max(API_LIMITS.maxResourceBytes, `must be at most ${API_LIMITS.maxResourceBytes} characters`)
  .regex(
    RESOURCE_PATTERN,
    "must start with a letter or digit and use only letters, digits and ':._-'",
  );

/** A business key: 1..200 UTF-8 bytes, NFC. */
export const businessKeySchema = boundedText(API_LIMITS.maxBusinessKeyBytes);

/** A clientId or ownerId: 1..128 UTF-8 bytes, NFC. */
export const holderIdSchema = boundedText(API_LIMITS.maxHolderIdBytes);

/** A lockId as Warden issues them: 22 base64url characters. */
export const lockIdSchema = z.string().regex(LOCK_ID_PATTERN, "must be a 22-character lock id");

/** A client-chosen id for one blocking acquire, so that `lock.cancelWait` can withdraw it. */
export const waitIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8..64 base64url characters");

/** A fence: the decimal string of an unsigned 64-bit integer, canonical (no leading zeros). */
export const fenceSchema = z
  .string()
  .regex(FENCE_PATTERN, "must be a decimal unsigned 64-bit integer")
  .refine((value) => BigInt(value) <= U64_MAX, "must be at most 2^64 - 1");

/** A lease in ms: integer in 1..60 000. */
export const leaseMsSchema = z
  .number()
  .int("must be an integer number of milliseconds")
  .min(1, "must be at least 1 ms")
  .max(API_LIMITS.maxLeaseMs, `must be at most ${API_LIMITS.maxLeaseMs} ms`);

/** How long an acquire may wait server-side, in ms: integer in 0..300 000. */
export const waitMsSchema = z
  .number()
  .int("must be an integer number of milliseconds")
  .min(0, "must not be negative")
  .max(API_LIMITS.maxWaitMs, `must be at most ${API_LIMITS.maxWaitMs} ms`);

/** Where grants are made. */
export const tierSchema = z.enum(["redis", "mysql", "local"]);

/** A page size: 1..1000. */
export const pageLimitSchema = z.number().int().min(1).max(API_LIMITS.maxPageSize);

/** An opaque cursor from a previous page. */
export const cursorSchema = z.string().min(1).max(512);

/** A free-text reason an operator gives for a force-release or an override. */
export const reasonSchema = z
  .string()
  .trim()
  .min(3, "say why (3+ characters)")
  .max(API_LIMITS.maxReasonChars);

/** A tenant id: a short slug such as `payments`. */
export const tenantIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, "must be lowercase letters, digits and '-'");

/** A wall-clock instant in ms since the Unix epoch. */
export const epochMsSchema = z.number().int().min(0).max(8_640_000_000_000_000);
