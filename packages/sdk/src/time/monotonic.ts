import { performance } from "node:perf_hooks";

/**
 * Milliseconds on the monotonic clock. Every deadline the SDK keeps (lease, wait,
 * renewal) is measured on it: a wall-clock step (NTP, an operator) can neither stretch
 * nor shrink a lease in the client's belief.
 */
export function monotonicNow(): number {
  return performance.now();
}
