import { performance } from "node:perf_hooks";
import type { LockKey } from "@warden/contract";

/** Removes the grant `lockId` of `key` if it exists; resolves once the store answered. */
type Remove = (key: LockKey, lockId: string, timeoutMs: number) => Promise<unknown>;

/**
 * Releases grants whose reply was lost (docs/design.md#no-replay-no-guess). The grant may exist, so
 * its lockId is released, retried until Redis answers or the lease has surely run out; after that
 * the key is free either way. Timers are unref'd: they never keep a process alive.
 */
export class UncertainGrantCleaner {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly remove: Remove) {}

  /** Starts cleaning one uncertain grant; `done` says whether a release got an answer. */
  schedule(
    key: LockKey,
    lockId: string,
    leaseMs: number,
    done: (cleanedUp: boolean) => void,
  ): void {
    const startedAt = performance.now();
    // Retry a few times per lease; a lease cannot outlive its own length.
    const intervalMs = Math.max(25, Math.floor(leaseMs / 4));
    const attempt = (): void => {
      if (this.closed) return;
      this.remove(key, lockId, intervalMs).then(
        () => done(true),
        () => {
          if (performance.now() - startedAt > leaseMs) done(false);
          else this.later(attempt, intervalMs);
        },
      );
    };
    this.later(attempt, 0);
  }

  /** Stops all pending retries. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(fn: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }
}
