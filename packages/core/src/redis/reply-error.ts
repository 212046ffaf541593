import { ReplyError } from "ioredis";

// Messages ioredis uses when it refuses to send a command at all: no connection to the
// node (the offline queue is off), no cluster node reachable, or the cluster not ready.
const NOT_SENT = [
  "enableOfflineQueue options is false",
  "None of startup nodes is available",
  "Cluster isn't ready",
];

/**
 * ioredis's cluster client gives up on a command after `maxRedirections` tries with this
 * message and the last try's error. It tries again only after a reply that says the command
 * did not run there: `MOVED` or `ASK` (another node serves the slot), `TRYAGAIN` (a
 * multi-key command whose keys are split between two nodes while a slot is resharded) or
 * `CLUSTERDOWN`. A closed connection is not tried again (Warden's cluster client sets
 * `retryDelayOnFailover` to 0: no replay), so it is never behind an earlier try. When the
 * last try's error is one of these replies too, no try ran.
 */
const REDIRECTED =
  /^Too many Cluster redirections\. Last error: ReplyError: (?:MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;

/**
 * Why a call certainly did not run on Redis, or undefined when it may have run:
 * `redirected` when the cluster kept sending it elsewhere (a slot being moved).
 */
export type NotExecutedReason = "refused" | "unreachable" | "redirected";

/**
 * Whether a failed call certainly did not run on Redis: Redis answered with an error (our
 * scripts validate before they write: `refused`), the client never sent it because it
 * has no connection (`unreachable`), or a cluster answered every try with a redirection
 * (`redirected`, see {@link REDIRECTED}). Anything else (timeout, "Connection is closed."
 * after sending) leaves the outcome unknown.
 */
export function notExecutedReason(error: unknown): NotExecutedReason | undefined {
  if (error instanceof ReplyError) return "refused";
  const message = error instanceof Error ? error.message : "";
  if (REDIRECTED.test(message)) return "redirected";
  return NOT_SENT.some((fragment) => message.includes(fragment)) ? "unreachable" : undefined;
}

/** Whether a failed call certainly did not run on Redis; see {@link notExecutedReason}. */
export function certainlyNotExecuted(error: unknown): boolean {
  return notExecutedReason(error) !== undefined;
}
