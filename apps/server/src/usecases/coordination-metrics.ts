/**
 * Outcomes of a semaphore or read-write acquire, as their metrics label them: those of a
 * lock's acquire.
 */
export type { AcquireOutcome } from "../stats/stats-collector.js";

/** The semaphore and read-write acquires' latency buckets, waits included, in seconds. */
export const ACQUIRE_DURATION_BUCKETS_S = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30,
];
