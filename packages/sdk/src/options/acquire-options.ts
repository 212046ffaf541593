/** Options of `warden.acquire`, `tryAcquire` and `withLock`. Durations are in ms. */
export interface AcquireOptions {
  /**
   * Lease length, in ms (1..60 000, at most the resource's `maxLeaseMs`). The watchdog
   * renews it at a third of its length while the lock is held, so it bounds how long a
   * crashed holder blocks others, not how long a live one may hold.
   * @defaultValue the resource's `defaultLeaseMs`
   */
  readonly leaseMs?: number;
  /**
   * How long to wait for the key, in ms (0..300 000). The server queues the waiter and
   * wakes it on release (FIFO for `fair` resources); when it runs out, `acquire` throws
   * `LockTimeoutError`. `tryAcquire` always uses 0.
   * @defaultValue 10 000 for `acquire` and `withLock`
   */
  readonly waitMs?: number;
  /** Cancels the wait: the waiter leaves the server's queue and `acquire` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Longest hold, in ms (a cap on the whole hold, docs/design.md#resource-policy): past it the
   * lock's signal aborts with a `LeaseLostError` and the lock is released even if the holder has
   * not finished.
   * @defaultValue no cap
   */
  readonly maxHoldMs?: number;
  /**
   * The task inside this client that holds the lock; the same ownerId re-enters a lock it
   * holds. By default: the owner of the enclosing `withLock` callback or `warden.task()`
   * scope, else a fresh id per call (so independent calls exclude each other, even inside
   * one process).
   */
  readonly ownerId?: string;
}

/** Defaults of {@link AcquireOptions}, in ms. */
export const ACQUIRE_DEFAULTS = Object.freeze({
  waitMs: 10_000,
});
