/**
 * Milliseconds on the kernel's CLOCK_MONOTONIC (libuv's hrtime), with microsecond
 * resolution. Unlike `performance.now()`, whose origin is the process start, this clock is
 * shared by every process on the machine, so the checker can order events logged by
 * different workers; unlike `Date.now()`, no clock jump (libfaketime, NTP) moves it.
 */
export function monoNow(): number {
  return Number(process.hrtime.bigint() / 1_000n) / 1_000;
}
