/**
 * Capped exponential backoff with full jitter: a uniformly random delay in
 * `[0, min(capMs, baseMs * 2^attempt))`. Full jitter spreads clients that failed
 * together (a server restart drops every connection at once) so they do not return
 * together; the cap bounds the wait after a long outage.
 *
 * @param attempt - 0 for the first retry.
 * @param baseMs - ceiling of the first delay, in ms.
 * @param capMs - largest ceiling, in ms.
 * @returns A delay in ms.
 */
export function fullJitterDelayMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
