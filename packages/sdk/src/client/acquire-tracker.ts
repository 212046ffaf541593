/** Acquires in flight per key and owner, so clean-up never mistakes their grants for orphans. */
export class AcquireTracker {
  private readonly counts = new Map<string, number>();

  /** Marks one acquire as started; call the returned function when it ends. */
  begin(resource: string, businessKey: string, ownerId: string): () => void {
    const name = `${resource}|${ownerId}|${businessKey}`;
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.counts.get(name) ?? 1) - 1;
      if (left === 0) this.counts.delete(name);
      else this.counts.set(name, left);
    };
  }

  /** True while an acquire of the key by the owner is in flight. */
  has(resource: string, businessKey: string, ownerId: string): boolean {
    return this.counts.has(`${resource}|${ownerId}|${businessKey}`);
  }
}
