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

  /** Fresh value, else `load()`; when `load` throws, a stale value, else the error. */
  async read(key: string, load: () => Promise<V>): Promise<V> {
    const fresh = this.get(key);
    if (fresh !== undefined) return fresh;
    try {
      const value = await load();
      this.set(key, value);
      return value;
    } catch (error) {
      const stale = this.getStale(key);
      if (stale !== undefined) return stale;
      throw error;
    }
  }
}
