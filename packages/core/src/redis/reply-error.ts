import { ReplyError } from "ioredis";

// Messages ioredis uses when it refuses to send a command at all.
const NOT_SENT = [
  "enableOfflineQueue options is false",
  "None of startup nodes is available",
  "Cluster isn't ready",
];

/**
 * Whether a failed call certainly did not run on Redis: Redis answered with an error (our
 * scripts validate before they write), or the client refused to send it. Anything else
 * (timeout, "Connection is closed." after sending) leaves the outcome unknown.
 */
export function certainlyNotExecuted(error: unknown): boolean {
  if (error instanceof ReplyError) return true;
  const message = error instanceof Error ? error.message : "";
  return NOT_SENT.some((fragment) => message.includes(fragment));
}
