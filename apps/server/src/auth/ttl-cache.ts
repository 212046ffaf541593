/**
 * A small map whose entries are fresh for `ttlMs` and may still be served, stale, for
 * `staleMs` when the source cannot be reached. Credential and registry lookups go through
 * it: a revoked key stops within `ttlMs` on every instance (at once on the instance that
 * revoked it, which deletes the entry), and a MySQL outage does not stop lock traffic
 * that Redis can still serve (stale-if-error, docs/decisions/0014).
 */
export class TtlCache<V> {
  private readonly entries = new Map<
    string,
    { value: V; freshUntil: number; staleUntil: number }
  >();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly staleMs = 10 * 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** The entry while fresh. */
  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.freshUntil > now ? entry.value : undefined;
  }

  /** The entry while fresh or stale (for when the source failed). */
  getStale(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.staleUntil <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, now = Date.now()): void {
    this.entries.delete(key);
    // Oldest first: a Map iterates in insertion order.
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, {
      value,
      freshUntil: now + this.ttlMs,
      staleUntil: now + this.ttlMs + this.staleMs,
    });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /**
   * Fresh value, else `load()` (one load per key at a time). When a stale value exists it
   * is answered if the load fails, if another call's load is still running, or if this
   * load takes over `staleWaitMs` — a hanging database must not stall every call.
   */
  async read(key: string, load: () => Promise<V>, staleWaitMs = 250): Promise<V> {
    const fresh = this.get(key);
    if (fresh !== undefined) return fresh;
    const stale = this.getStale(key);
    const running = this.loading.get(key);
    if (running && stale !== undefined) return stale;
    const loading = running ?? this.startLoad(key, load);
    if (stale === undefined) return loading;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<V>((resolve) => {
      timer = setTimeout(() => resolve(stale), staleWaitMs);
    });
    try {
      return await Promise.race([loading.catch(() => stale), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private startLoad(key: string, load: () => Promise<V>): Promise<V> {
    const loading = load().then((value) => {
      this.set(key, value);
      return value;
    });
    this.loading.set(key, loading);
    // Settled either way: the next read may load again. The catch keeps a failure that
    // nobody awaits any more from being reported as unhandled.
    loading.catch(() => undefined).finally(() => this.loading.delete(key));
    return loading;
  }
}
