import { InvalidArgumentError, LIMITS } from "@warden/contract";

/** Checks an optional integer duration option, in ms, within `[minMs, maxMs]`. */
export function checkMs(
  option: string,
  value: unknown,
  minMs: number,
  maxMs: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new InvalidArgumentError(option, "must be an integer number of milliseconds");
  }
  if (value < minMs || value > maxMs) {
    throw new InvalidArgumentError(option, `must be between ${minMs} and ${maxMs} ms`);
  }
  return value;
}

// Control characters break logs; braces move a Redis hash tag; `|` separates lease fields.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_TEXT = /[\u0000-\u001f\u007f{}|]/;

/** Checks an identifier such as clientId or ownerId: 1..128 UTF-8 bytes, printable. */
export function checkHolderId(option: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new InvalidArgumentError(option, "must be a non-empty string");
  }
  if (Buffer.byteLength(value, "utf8") > LIMITS.maxHolderIdBytes) {
    throw new InvalidArgumentError(option, `must be at most ${LIMITS.maxHolderIdBytes} bytes`);
  }
  if (FORBIDDEN_IN_TEXT.test(value)) {
    throw new InvalidArgumentError(option, "must not contain control characters, '{', '}' or '|'");
  }
  return value;
}
