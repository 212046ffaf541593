// Control characters (C0, DEL, C1) and line/paragraph separators break logs and the
// console; braces would move a key's cluster hash tag; `|` separates fields of a stored
// lease.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029{}|]/;
// With the `u` flag a well-formed surrogate pair is one code point, so this matches only
// a lone (unpaired) surrogate: Redis and MySQL would store it as U+FFFD or bytes that
// collapse distinct names into one.
const LONE_SURROGATE = /\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

/** Why an identifier text is refused, in the caller's words; null when it is fine. */
export const TEXT_RULE = "must not contain control characters, line separators, '{', '}' or '|'";
/** The reason given for a lone UTF-16 surrogate. */
export const UNICODE_RULE = "must be valid Unicode text (it contains a lone UTF-16 surrogate)";

/**
 * The canonical form of an identifier (business key, clientId, ownerId): Unicode NFC, so
 * that "é" typed precomposed or as "e" + U+0301 is one lock, one holder. ASCII text is
 * returned as it is without normalizing.
 */
export function canonicalText(value: string): string {
  return NON_ASCII.test(value) ? value.normalize("NFC") : value;
}

/** What is wrong with an identifier text, or null: forbidden characters, lone surrogates. */
export function textProblem(value: string): string | null {
  if (FORBIDDEN_IN_TEXT.test(value)) return TEXT_RULE;
  if (NON_ASCII.test(value) && LONE_SURROGATE.test(value)) return UNICODE_RULE;
  return null;
}

/**
 * UTF-8 length of `value` without allocating (TextEncoder and Buffer would copy it). A
 * lone surrogate counts 3 bytes, as its U+FFFD replacement would.
 */
export function utf8Length(value: string): number {
  let bytes = value.length;
  if (!NON_ASCII.test(value)) return bytes;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else {
      // 3 bytes for a BMP character or a lone surrogate; 4 for a pair (2 units).
      bytes += 2;
      const next = value.charCodeAt(i + 1);
      if (unit >= 0xd800 && unit < 0xdc00 && next >= 0xdc00 && next < 0xe000) i += 1;
    }
  }
  return bytes;
}
