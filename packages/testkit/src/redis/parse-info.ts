/** Parses the `key:value` lines of an INFO reply; section headers are dropped. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** Parses the flat `[key, value, key, value…]` arrays SENTINEL commands return. */
export function parseFlatPairs(reply: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (!Array.isArray(reply)) return fields;
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), String(reply[i + 1]));
  return fields;
}
