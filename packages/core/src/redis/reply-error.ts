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
 * did not run there: `MOVED` or `ASK` (another node serves the slot) or `TRYAGAIN` (a
 * multi-key command whose keys are split between two nodes while a slot is resharded).
 * Warden's cluster client sets `retryDelayOnClusterDown` to 0, so a `CLUSTERDOWN` reply
 * comes back at once as the reply itself (a refusal, see {@link PASSING}); it is still
 * matched here, as the last error, in case a client is built without that setting. A
 * closed connection is not tried again (`retryDelayOnFailover` 0: no replay), so it is never
 * behind an earlier try. When the last try's error is one of these replies too, no try ran.
 */
const REDIRECTED =
  /^Too many Cluster redirections\. Last error: ReplyError: (?:MOVED|ASK|TRYAGAIN|CLUSTERDOWN|BUSY) /;

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

/**
 * Error replies of a node that cannot serve the call now but likely will soon, the same
 * node or its successor: `READONLY` (the node is a replica: demoted in a failover, or the
 * client has not followed the failover yet; a script gets it at its first write, so nothing
 * was written), `LOADING` (a restarted node still loading its data set), `MASTERDOWN` (a
 * replica whose master link is down), `CLUSTERDOWN` (a cluster missing a slot's master
 * until a failover or an operator mends it) and `BUSY` (another client's script or function
 * has run past the busy threshold: Redis answers every other call so until it ends or is
 * killed). Each is Redis's answer before the call runs.
 */
const PASSING = /^(?:READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|BUSY) /;

/**
 * Whether Redis refused a call (a `refused` {@link notExecutedReason}) for a state that
 * passes on its own, see {@link PASSING}, rather than for the call itself.
 */
export function refusedForNow(error: unknown): boolean {
  return error instanceof ReplyError && PASSING.test((error as Error).message);
}

/** Whether a failed call certainly did not run on Redis; see {@link notExecutedReason}. */
export function certainlyNotExecuted(error: unknown): boolean {
  return notExecutedReason(error) !== undefined;
}

/**
 * When to try again a call that was not sent because the client had no connection, or that a
 * node refused for a passing state ({@link refusedForNow}: a replica after a failover, still
 * loading): the client reconnects or follows the failover, or the tier controller moves
 * grants to MySQL within a few of its 1 s probes. A server-side wait pauses this long between
 * such tries (docs/decisions/0232); a try that fails locally costs nothing on Redis.
 */
export const UNREACHABLE_RETRY_AFTER_MS = 250;

/**
 * When to try again a call a cluster kept redirecting: ioredis has already spent its
 * redirections (16, 20 ms apart after each `TRYAGAIN`), and moving one slot's keys takes
 * longer than that.
 */
export const REDIRECTED_RETRY_AFTER_MS = 500;

/**
 * When a failed call may be tried again with a fair chance: set only for a call that
 * certainly did not run and whose cause passes on its own (no connection, a redirected
 * call, a refusal {@link refusedForNow}); `null` for everything else.
 */
export function retryAfterMsOf(error: unknown): number | null {
  const notExecuted = notExecutedReason(error);
  if (notExecuted === "redirected") return REDIRECTED_RETRY_AFTER_MS;
  if (notExecuted === "unreachable" || refusedForNow(error)) return UNREACHABLE_RETRY_AFTER_MS;
  return null;
}
