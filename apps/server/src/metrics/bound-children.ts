/**
 * Pre-bound label children of a metric, cached per label tuple: the hot path looks a
 * child up by its label values and calls it, instead of building a label object per call
 * and having prom-client validate it. Bounded by its callers' label cardinality
 * (resources × tiers × outcomes × capped apps).
 *
 * The cache is a tree of maps, one level per label, so a lookup allocates nothing (a
 * joined string key cost a string per call, three calls per lock cycle).
 */
export class BoundChildren<C> {
  private readonly root = new Map<string, unknown>();
  private count = 0;

  constructor(private readonly bind: (values: readonly string[]) => C) {}

  /** The child of these label values (in the metric's label order). */
  get(...values: string[]): C {
    let level = this.root;
    const last = values.length - 1;
    for (let index = 0; index < last; index++) {
      const value = values[index] ?? "";
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map<string, unknown>();
        level.set(value, next);
      }
      level = next;
    }
    const leaf = values[last] ?? "";
    let child = level.get(leaf) as C | undefined;
    if (child === undefined) {
      child = this.bind(values);
      level.set(leaf, child);
      this.count += 1;
    }
    return child;
  }

  /** How many children exist (for tests of the cardinality bound). */
  get size(): number {
    return this.count;
  }
}
