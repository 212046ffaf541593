import { pino, type DestinationStream, type Logger } from "pino";

// JSON already escapes C0 controls (\n, ESC); these it leaves raw, and some terminals and
// log viewers still treat them as line breaks or escapes.
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;

function escapeRaw(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return RAW_IN_JSON.test(value)
      ? value.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      : value;
  }
  if (depth > 4 || value === null || typeof value !== "object" || value instanceof Error)
    return value;
  if (Array.isArray(value)) return value.map((item) => escapeRaw(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = escapeRaw(item, depth + 1);
  return out;
}

/**
 * The server's JSON logger; lock lines carry `lockId` and `fence` fields. Every line is one
 * line: a client-chosen value (clientId, host, reason) with control characters, DEL, C1
 * controls or Unicode line separators is written escaped, never raw.
 */
export function createLogger(
  level: string,
  instanceId: string,
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { service: "warden-server", instanceId },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      log: (object: Record<string, unknown>) => escapeRaw(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger["info"]>, method: Logger["info"]) {
        const [first, ...rest] = args as unknown[];
        if (typeof first === "string")
          return method.apply(this, [escapeRaw(first), ...rest] as never);
        if (typeof rest[0] === "string")
          return method.apply(this, [first, escapeRaw(rest[0]), ...rest.slice(1)] as never);
        return method.apply(this, args);
      },
    },
    redact: {
      paths: [
        "apiKey",
        "password",
        "sessionToken",
        "req.headers.authorization",
        "req.headers.cookie",
      ],
      remove: true,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
