import type { LeaseRegistry } from "../lease/lease-registry.js";
import { releaseRemote, type RemoteGrantRef } from "../remote/release-remote.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { monotonicNow } from "../time/monotonic.js";
import { backgroundTimeout } from "../time/timers.js";
import type { Connection } from "../transport/connection.js";

/** A grant whose release was not confirmed: release it by lockId until it has expired anyway. */
interface ReleaseTask {
  readonly kind: "release";
  readonly grant: RemoteGrantRef;
  /** Monotonic instant after which the lease has expired at the store for sure. */
  readonly untilAt: number;
}

/**
 * An acquire whose outcome is unknown and whose lockId the SDK never saw: look the key
 * up and release it if this client's owner holds it under a lockId nobody here knows.
 */
interface OrphanTask {
  readonly kind: "orphan";
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly untilAt: number;
  /** Checks left; a late grant can land after the first look. */
  checks: number;
}

type Task = (ReleaseTask | OrphanTask) & { notBefore: number; attempt: number };

/** What the queue needs from its client. */
export interface CleanupDeps {
  readonly connection: Connection;
  readonly registry: LeaseRegistry;
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly onError: (error: unknown, context: string) => void;
  /** True while an acquire of this key by this owner is in flight (its grant is not an orphan). */
  readonly acquiring: (resource: string, businessKey: string, ownerId: string) => boolean;
}

// The longest a lease can outlive its last renewal (the hard cap, docs/design.md#resource-policy)
// plus a reply.
const LONGEST_LEASE_MS = 60_000;

/**
 * Background clean-up of outcomes that are unknown (docs/design.md#no-replay-no-guess): never
 * reported as granted or as free, and released by lockId once the server answers again. Runs only
 * while the connection is open; its timers never keep the process alive.
 */
export class CleanupQueue {
  private readonly tasks: Task[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private closed = false;

  constructor(private readonly deps: CleanupDeps) {
    deps.connection.onChange((state) => {
      if (state === "open") this.kick();
    });
  }

  /** Releases `grant` later; the lease it names is gone after `leaseMs` at the latest. */
  releaseLater(grant: RemoteGrantRef, leaseMs: number): void {
    this.push({
      kind: "release",
      grant,
      untilAt: monotonicNow() + Math.min(leaseMs, LONGEST_LEASE_MS) + this.deps.requestTimeoutMs,
      notBefore: 0,
      attempt: 0,
    });
  }

  /** Looks for a grant an unknown acquire may have left behind, and releases it. */
  findOrphan(resource: string, businessKey: string, ownerId: string): void {
    this.push({
      kind: "orphan",
      resource,
      businessKey,
      ownerId,
      untilAt: monotonicNow() + LONGEST_LEASE_MS + this.deps.requestTimeoutMs,
      checks: 2,
      notBefore: 0,
      attempt: 0,
    });
  }

  /** Stops for good; pending tasks are dropped (their leases expire on their own). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.tasks.length = 0;
  }

  /** Tasks not done yet (for tests and close). */
  get size(): number {
    return this.tasks.length;
  }

  private push(task: Task): void {
    if (this.closed) return;
    this.tasks.push(task);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.closed || this.deps.connection.state !== "open") return;
    this.running = true;
    void this.drain().finally(() => {
      this.running = false;
      this.schedule();
    });
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.closed || this.tasks.length === 0) return;
    const next = Math.min(...this.tasks.map((task) => task.notBefore));
    this.timer = backgroundTimeout(() => this.kick(), next - monotonicNow());
  }

  private async drain(): Promise<void> {
    for (const task of [...this.tasks]) {
      if (this.closed || this.deps.connection.state !== "open") return;
      const now = monotonicNow();
      if (now >= task.untilAt) {
        this.drop(task);
        continue;
      }
      if (now < task.notBefore) continue;
      try {
        const done = task.kind === "release" ? await this.release(task) : await this.orphan(task);
        if (done) this.drop(task);
      } catch (error) {
        this.deps.onError(error, `clean-up (${task.kind}) of ${describe(task)}`);
        task.notBefore = monotonicNow() + fullJitterDelayMs(task.attempt++, 200, 5_000);
      }
    }
  }

  private async release(task: ReleaseTask): Promise<boolean> {
    await releaseRemote(this.deps.connection, task.grant, this.deps.requestTimeoutMs);
    return true;
  }

  private async orphan(task: OrphanTask & Task): Promise<boolean> {
    const { resource, businessKey, ownerId } = task;
    if (this.deps.acquiring(resource, businessKey, ownerId)) {
      task.notBefore = monotonicNow() + this.deps.requestTimeoutMs;
      return false;
    }
    const { lease } = await this.deps.connection.call(
      (api, call) => api.lock.inspect.query({ resource, businessKey }, call),
      this.deps.requestTimeoutMs,
    );
    const ours =
      lease !== null &&
      lease.holder.clientId === this.deps.clientId &&
      lease.holder.ownerId === ownerId &&
      this.deps.registry.byId(lease.lockId) === undefined;
    if (ours) {
      await releaseRemote(this.deps.connection, lease, this.deps.requestTimeoutMs);
      return true;
    }
    task.checks -= 1;
    task.notBefore = monotonicNow() + this.deps.requestTimeoutMs;
    return task.checks <= 0;
  }

  private drop(task: Task): void {
    const index = this.tasks.indexOf(task);
    if (index >= 0) this.tasks.splice(index, 1);
  }
}

function describe(task: ReleaseTask | OrphanTask): string {
  return task.kind === "release"
    ? `lock ${task.grant.lockId} on ${task.grant.resource}`
    : `an unknown acquire on ${task.resource}`;
}
