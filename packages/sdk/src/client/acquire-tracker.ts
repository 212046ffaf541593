/**
 * The calls `close()` must let finish before the socket goes: acquires in flight (per key
 * and owner too, so clean-up never mistakes their grants for orphans) and releases sent in
 * the background (a grant that crossed its caller's abort).
 */
export class AcquireTracker {
  private readonly counts = new Map<string, number>();
  private inflight = 0;
  private readonly background = new Set<Promise<unknown>>();
  private readonly withdrawers = new Set<() => void>();
  private idleWaiters: (() => void)[] = [];

  /** Marks one acquire as started; call the returned function when it ends. */
  begin(resource: string, businessKey: string, ownerId: string): () => void {
    const name = `${resource}|${ownerId}|${businessKey}`;
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    this.inflight += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.counts.get(name) ?? 1) - 1;
      if (left === 0) this.counts.delete(name);
      else this.counts.set(name, left);
      this.inflight -= 1;
      if (this.inflight === 0) this.wakeIdle();
    };
  }

  /** True while an acquire of the key by the owner is in flight. */
  has(resource: string, businessKey: string, ownerId: string): boolean {
    return this.counts.has(`${resource}|${ownerId}|${businessKey}`);
  }

  /**
   * Registers how to withdraw a server-side wait in flight (`close()` withdraws them all);
   * call the returned function when the wait ends.
   */
  waiting(withdraw: () => void): () => void {
    this.withdrawers.add(withdraw);
    return () => this.withdrawers.delete(withdraw);
  }

  /** Withdraws every server-side wait in flight (close). */
  withdrawAll(): void {
    const withdrawers = [...this.withdrawers];
    this.withdrawers.clear();
    for (const withdraw of withdrawers) withdraw();
  }

  /** Keeps `release` (a release nobody awaits) until it settles; never rejects. */
  releaseInBackground(release: Promise<unknown>): void {
    const settled = release.then(
      () => undefined,
      () => undefined,
    );
    this.background.add(settled);
    void settled.then(() => this.background.delete(settled));
  }

  /** Resolves once no acquire is in flight, or after `timeoutMs`. */
  async acquiresSettled(timeoutMs: number): Promise<void> {
    if (this.inflight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
  }

  /** Resolves once the background releases sent so far settled (each has its own deadline). */
  async releasesSettled(): Promise<void> {
    await Promise.all([...this.background]);
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
