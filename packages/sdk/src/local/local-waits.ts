/**
 * Wakes local waiters of a key when a local lease of it ends, so that waiting for an
 * in-process lock is not a polling loop.
 */
export class LocalWaits {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves on the next release of the key, after `maxMs`, or when `signal` aborts. */
  next(resource: string, businessKey: string, maxMs: number, signal?: AbortSignal): Promise<void> {
    const name = `${resource}|${businessKey}`;
    return new Promise((resolve) => {
      const set = this.waiters.get(name) ?? new Set<() => void>();
      this.waiters.set(name, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(name) === set) this.waiters.delete(name);
        resolve();
      };
      // Ref'd: a caller awaits this wait.
      const timer = setTimeout(done, Math.max(0, maxMs));
      signal?.addEventListener("abort", done, { once: true });
      set.add(done);
    });
  }

  /** A local lease of the key ended. */
  notify(resource: string, businessKey: string): void {
    for (const wake of [...(this.waiters.get(`${resource}|${businessKey}`) ?? [])]) wake();
  }
}
