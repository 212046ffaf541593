import { InvalidArgumentError } from "@warden/contract";

// C0 and C1 control characters, DEL, and the Unicode line/paragraph separators: none of
// them belongs in a name, and each can forge a line in a log or a terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Longest clientId, in UTF-16 code units and in UTF-8 bytes (the column holds 128). */
export const MAX_CLIENT_ID = 128;

/** Longest host name an SDK may report (the column holds 255). */
export const MAX_HOST = 255;

/** True when `value` has a control character or a lone UTF-16 surrogate. */
export function hasUnsafeCharacters(value: string): boolean {
  return CONTROL.test(value) || LONE_SURROGATE.test(value);
}

/**
 * Checks an identifier a client chose (clientId, host): non-empty, at most `max` UTF-8
 * bytes, no control characters, no lone surrogates. Refused rather than truncated or
 * cleaned: a silently changed identifier would name someone else.
 */
export function checkIdentifier(field: string, value: string | null, max: number): string {
  if (value === null || value.length === 0) {
    throw new InvalidArgumentError(field, "must not be empty");
  }
  if (value.length > max || Buffer.byteLength(value, "utf8") > max) {
    throw new InvalidArgumentError(field, `must be at most ${max} bytes`);
  }
  if (hasUnsafeCharacters(value)) {
    throw new InvalidArgumentError(field, "must not contain control characters");
  }
  return value;
}
