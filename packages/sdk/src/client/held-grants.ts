/**
 * The grants of one kind a client holds (semaphore permits, read-write grants), released by
 * `warden.close()`: a grant adds itself when it starts and removes itself when it ends.
 */
export class HeldGrants<G extends { release(): Promise<void> }> {
  private readonly held = new Set<G>();

  add(grant: G): void {
    this.held.add(grant);
  }

  delete(grant: G): void {
    this.held.delete(grant);
  }

  /** Releases every held grant (close: stop renewing, then release at the server). */
  async releaseAll(): Promise<void> {
    await Promise.allSettled([...this.held].map((grant) => grant.release()));
  }
}
