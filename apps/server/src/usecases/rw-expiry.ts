import type { LockKey } from "@warden/contract";
import type { RwKeyView, RwLeaseView } from "@warden/core";

/** A read-write grant this instance made, watched until it ends. */
export interface WatchedRwGrant {
  readonly tenantId: string;
  readonly key: LockKey;
  readonly view: RwLeaseView;
  /** Latest expiry known here (ms since the Unix epoch, store clock). */
  expiresAt: number;
}

/** What {@link RwExpiryWatch} needs. */
export interface RwExpiryWatchDeps {
  /** The key as the stores see it now (null: nothing live); a rejection skips this round. */
  inspect(key: LockKey): Promise<RwKeyView | null>;
  /** True when another instance recorded the grant's release (the SDK may fail over). */
  releasedElsewhere(lockId: string): Promise<boolean>;
  /** The grant ended at its lease: audit and count it. */
  expired(grant: WatchedRwGrant): void;
  /** How often past-expiry grants are checked, in ms. @defaultValue 1 000 */
  readonly everyMs?: number;
  /** How long past its expiry a grant is first checked, in ms. @defaultValue 5 000 */
  readonly graceMs?: number;
}

// Bounded: grants beyond it are not watched (their expiry goes unaudited, never wrongly).
const MAX_WATCHED = 100_000;

/**
 * Audits read-write grants that end at their lease (docs/decisions/0166). The stores reclaim
 * an expired grant silently inside the next decision, so the instance that granted it keeps
 * it here until it is released or extended (here: forgotten or moved on), and once it is
 * past its expiry plus a grace asks the stores: a grant still live was renewed through
 * another instance (its new expiry is taken); a gone one was released elsewhere (the audit
 * says so) or expired — then `expired` is called once.
 */
export class RwExpiryWatch {
  private readonly grants = new Map<string, WatchedRwGrant>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly everyMs: number;
  private readonly graceMs: number;

  constructor(private readonly deps: RwExpiryWatchDeps) {
    this.everyMs = deps.everyMs ?? 1_000;
    this.graceMs = deps.graceMs ?? 5_000;
  }

  granted(grant: WatchedRwGrant): void {
    if (this.grants.size >= MAX_WATCHED && !this.grants.has(grant.view.lockId)) return;
    this.grants.set(grant.view.lockId, grant);
  }

  extended(lockId: string, expiresAt: number): void {
    const grant = this.grants.get(lockId);
    if (grant) grant.expiresAt = Math.max(grant.expiresAt, expiresAt);
  }

  lookup(lockId: string): WatchedRwGrant | undefined {
    return this.grants.get(lockId);
  }

  released(lockId: string): void {
    this.grants.delete(lockId);
  }

  /** Grants being watched (tests and close). */
  get size(): number {
    return this.grants.size;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over the grants past their expiry plus the grace; concurrent calls share it. */
  check(now = Date.now()): Promise<void> {
    this.running ??= this.pass(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(now: number): Promise<void> {
    const due = [...this.grants.values()].filter((g) => g.expiresAt + this.graceMs < now);
    for (const grant of due) {
      const view = await this.deps.inspect(grant.key).catch(() => undefined);
      if (view === undefined) continue;
      const live = [...(view?.writer ? [view.writer] : []), ...(view?.readers ?? [])].find(
        (g) => g.lockId === grant.view.lockId,
      );
      if (live) {
        grant.expiresAt = live.expiresAt;
        continue;
      }
      if (!this.grants.has(grant.view.lockId)) continue;
      this.grants.delete(grant.view.lockId);
      const elsewhere = await this.deps.releasedElsewhere(grant.view.lockId).catch(() => true);
      if (!elsewhere) this.deps.expired(grant);
    }
  }
}
