import { pino, type Logger } from "pino";

/** The server's JSON logger; lock lines carry `lockId` and `fence` fields. */
export function createLogger(level: string, instanceId: string): Logger {
  return pino({
    level,
    base: { service: "warden-server", instanceId },
    timestamp: pino.stdTimeFunctions.isoTime,
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
  });
}
