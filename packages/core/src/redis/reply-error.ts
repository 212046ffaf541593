import { ReplyError } from "ioredis";

// Messages ioredis uses when it refuses to send a command at all: no connection to the
// node (the offline queue is off), no cluster node reachable, or the cluster not ready.
const NOT_SENT = [
  "enableOfflineQueue options is false",
  "None of startup nodes is available",
  "Cluster isn't ready",
];

/** Why a call certainly did not run on Redis, or undefined when it may have run. */
export type NotExecutedReason = "refused" | "unreachable";

/**
 * Whether a failed call certainly did not run on Redis: Redis answered with an error (our
 * scripts validate before they write: `refused`), or the client never sent it because it
 * has no connection (`unreachable`). Anything else (timeout, "Connection is closed." after
 * sending) leaves the outcome unknown.
 */
export function notExecutedReason(error: unknown): NotExecutedReason | undefined {
  if (error instanceof ReplyError) return "refused";
  const message = error instanceof Error ? error.message : "";
  return NOT_SENT.some((fragment) => message.includes(fragment)) ? "unreachable" : undefined;
}

/** Whether a failed call certainly did not run on Redis; see {@link notExecutedReason}. */
export function certainlyNotExecuted(error: unknown): boolean {
  return notExecutedReason(error) !== undefined;
}
