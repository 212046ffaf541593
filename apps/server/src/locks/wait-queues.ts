import { performance } from "node:perf_hooks";
import type { Holder, LockKey } from "@warden/contract";
import { RemoteWaits, type SharedWait } from "./fleet-waits.js";
import { keyString } from "./lock-key.js";

// NUL never appears in a tenant id or a waitId (both validated slugs).
function waitKey(tenantId: string, waitId: string): string {
  return `${tenantId}\u0000${waitId}`;
}

/** One blocking acquire waiting for a key. */
export interface Waiter {
  readonly id: number;
  /**
   * Its fleet-wide id, random; for a fair resource also its place id in the store's
   * queue (`fair.waiterId`), so any instance can map a place to its waiter.
   */
  readonly ref: string;
  /** Whether it holds a place in the store's queue (a fair resource). */
  readonly fair: boolean;
  readonly key: LockKey;
  readonly holder: Holder;
  readonly waitId: string | null;
  readonly tenantId: string;
  /** When it started waiting, ms since the Unix epoch. */
  readonly since: number;
  /** Monotonic start, for the waited time. */
  readonly startedMono: number;
  /** Set once its first try was refused: from then on it waits (and is listed). */
  waiting: boolean;
  /** Wakes the waiter so it tries again (or notices it was cancelled). */
  wake(): void;
  /** Withdraws it: its acquire fails as cancelled. */
  cancel(): void;
}

/** A waiter as the holder router shows it. */
export interface WaiterView {
  readonly resource: string;
  readonly businessKey: string;
  readonly clientId: string;
  readonly ownerId: string;
  /**
   * 0 = next. The same on every instance: for fair resources the place in the store's
   * queue, for the others the fleet's arrival order (docs/decisions/0155).
   */
  readonly position: number;
  readonly since: number;
  readonly waitedMs: number;
}

/** How the wait queues reach the other instances (the fleet bus, once it is attached). */
export interface WaitFleetLink {
  /** Asks the instance running `wait` to cancel it; false when the message could not leave. */
  requestCancel(wait: SharedWait): Promise<boolean>;
  /** Whether other instances share this bus (false while alone: no remote waits exist). */
  hasPeers(): boolean;
}

/** What the fleet bus takes from the wait queues to share them. */
export interface WaitChanges {
  /** Waits that started waiting (listed) since the last call. */
  readonly started: SharedWait[];
  /** Refs of announced waits that ended since the last call. */
  readonly ended: string[];
}

/** The shared form of a local waiter. */
function shared(waiter: Waiter): SharedWait {
  return {
    ref: waiter.ref,
    tenantId: waiter.tenantId,
    resource: waiter.key.resource,
    businessKey: waiter.key.businessKey,
    waitId: waiter.waitId,
    clientId: waiter.holder.clientId,
    ownerId: waiter.holder.ownerId,
    since: waiter.since,
    fair: waiter.fair,
  };
}

/**
 * This instance's waiters, per key in arrival order: what is needed to wake them, cancel
 * one by waitId, list and count them; and, through the fleet bus, the waits the other
 * instances run (`remote`), so listing and cancelling cover the fleet
 * (docs/decisions/0155). They do not decide who goes first: for `fair` resources the
 * store keeps one queue per key for the whole fleet (docs/decisions/0012).
 */
export class WaitQueues {
  private readonly queues = new Map<string, Waiter[]>();
  /** By tenant and waitId: waitIds are chosen by clients, so each tenant has its own namespace. */
  private readonly byWaitId = new Map<string, Waiter>();
  private readonly byRef = new Map<string, Waiter>();
  private nextId = 1;
  /** Other instances' waits, as the fleet bus reports them. */
  readonly remote = new RemoteWaits();
  private link: WaitFleetLink | null = null;
  /** Set by {@link cancelAll} (shutdown): a wait that begins later is cancelled at once. */
  private closed = false;
  // Kept only while a fleet bus takes them (no bus: nothing accumulates).
  private started: SharedWait[] = [];
  private ended: string[] = [];

  /** The fleet bus shares this instance's waits and carries cancels to other instances. */
  attachFleet(link: WaitFleetLink): void {
    this.link = link;
  }

  /** Adds a waiter at the back of its key's queue. */
  enqueue(init: Omit<Waiter, "id" | "since" | "startedMono" | "waiting">): Waiter {
    const waiter: Waiter = {
      ...init,
      waiting: false,
      id: this.nextId++,
      since: Date.now(),
      startedMono: performance.now(),
    };
    const name = keyString(waiter.key);
    const queue = this.queues.get(name) ?? [];
    queue.push(waiter);
    this.queues.set(name, queue);
    if (waiter.waitId !== null) this.byWaitId.set(waitKey(waiter.tenantId, waiter.waitId), waiter);
    this.byRef.set(waiter.ref, waiter);
    // A call that was already past the shutdown gate (its body or its authentication still
    // in flight) must not start a wait the shutdown would leave running until its timeout.
    if (this.closed) waiter.cancel();
    return waiter;
  }

  /** Marks a waiter as waiting (its first try was refused), so it is listed (fleet-wide). */
  placed(waiter: Waiter): void {
    if (waiter.waiting) return;
    waiter.waiting = true;
    if (this.link) this.started.push(shared(waiter));
  }

  /** Removes a waiter (granted, timed out or cancelled). */
  remove(waiter: Waiter): void {
    const name = keyString(waiter.key);
    const queue = this.queues.get(name);
    if (queue) {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      if (queue.length === 0) this.queues.delete(name);
    }
    if (waiter.waitId !== null) {
      const name = waitKey(waiter.tenantId, waiter.waitId);
      if (this.byWaitId.get(name) === waiter) this.byWaitId.delete(name);
    }
    if (this.byRef.get(waiter.ref) === waiter) this.byRef.delete(waiter.ref);
    if (this.link && waiter.waiting) this.ended.push(waiter.ref);
  }

  /** What changed since the last call (for the fleet bus). */
  takeChanges(): WaitChanges {
    const changes = { started: this.started, ended: this.ended };
    this.started = [];
    this.ended = [];
    return changes;
  }

  /** Every wait of this instance that is listed, in the shared form (for the fleet bus). */
  ownShared(): SharedWait[] {
    const all: SharedWait[] = [];
    for (const queue of this.queues.values())
      for (const waiter of queue) if (waiter.waiting) all.push(shared(waiter));
    return all;
  }

  /** This instance's waiter `ref`, if it waits here. */
  local(ref: string): Waiter | undefined {
    return this.byRef.get(ref);
  }

  /**
   * Another instance asked to cancel the wait `ref`: withdrawn when it runs here under the
   * same tenant and waitId (a message naming another tenant's wait finds nothing).
   */
  cancelRef(ref: string, tenantId: string, waitId: string): boolean {
    const waiter = this.byRef.get(ref);
    if (!waiter || waiter.tenantId !== tenantId || waiter.waitId !== waitId) return false;
    waiter.cancel();
    return true;
  }

  /**
   * The tenant's wait sent with `waitId` on another instance (as far as the fleet bus
   * told), and the link to reach it; undefined when none is known or no bus is attached.
   */
  findRemote(
    waitId: string,
    tenantId: string,
    reach?: (resource: string) => boolean,
  ): { readonly wait: SharedWait; readonly link: WaitFleetLink } | undefined {
    if (!this.link) return undefined;
    const wait = this.remote.find(tenantId, waitId, Date.now());
    if (!wait || (reach && !reach(wait.resource))) return undefined;
    return { wait, link: this.link };
  }

  /**
   * {@link findRemote}, but when no such wait is known yet and other instances share the
   * bus, waits up to `graceMs` for one of them to announce it: a cancel sent to this
   * instance right after the wait began elsewhere must still reach it.
   */
  async findRemoteSoon(
    waitId: string,
    tenantId: string,
    graceMs: number,
    reach?: (resource: string) => boolean,
  ): Promise<{ readonly wait: SharedWait; readonly link: WaitFleetLink } | undefined> {
    const link = this.link;
    if (!link) return undefined;
    const found = this.findRemote(waitId, tenantId, reach);
    if (found || !link.hasPeers()) return found;
    const wait = await this.remote.whenKnown(tenantId, waitId, graceMs);
    if (!wait || (reach && !reach(wait.resource))) return undefined;
    return { wait, link };
  }

  /** This instance's listed waiters of one resource (optionally one key), shared form. */
  ownOf(resource: string, businessKey?: string): SharedWait[] {
    const found: SharedWait[] = [];
    for (const queue of this.queues.values()) {
      const first = queue[0];
      if (!first || first.key.resource !== resource) continue;
      if (businessKey !== undefined && first.key.businessKey !== businessKey) continue;
      for (const waiter of queue) if (waiter.waiting) found.push(shared(waiter));
    }
    return found;
  }

  /**
   * Withdraws the waiter `tenantId` sent with `waitId`; false when there is none. Another
   * tenant's waitId is simply not found: same answer as one that never existed; so is
   * one on a resource the caller does not `reach` (a key's resource prefix).
   */
  cancel(waitId: string, tenantId: string, reach?: (resource: string) => boolean): boolean {
    const waiter = this.byWaitId.get(waitKey(tenantId, waitId));
    if (!waiter || (reach && !reach(waiter.key.resource))) return false;
    waiter.cancel();
    return true;
  }

  /**
   * This instance's waiters of one resource (optionally one key), in their arrival order
   * here (`position` among them). The fleet's list is `LockService.listWaiters`.
   */
  list(resource: string, businessKey?: string): WaiterView[] {
    const now = performance.now();
    const views: WaiterView[] = [];
    for (const queue of this.queues.values()) {
      const first = queue[0];
      if (!first || first.key.resource !== resource) continue;
      if (businessKey !== undefined && first.key.businessKey !== businessKey) continue;
      queue
        .filter((waiter) => waiter.waiting)
        .forEach((waiter, position) =>
          views.push({
            resource: waiter.key.resource,
            businessKey: waiter.key.businessKey,
            clientId: waiter.holder.clientId,
            ownerId: waiter.holder.ownerId,
            position,
            since: waiter.since,
            waitedMs: Math.round(now - waiter.startedMono),
          }),
        );
    }
    return views;
  }

  /** Waiters per resource, for metrics and stats. */
  countsByResource(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const queue of this.queues.values()) {
      const resource = queue[0]?.key.resource;
      if (resource !== undefined) counts.set(resource, (counts.get(resource) ?? 0) + queue.length);
    }
    return counts;
  }

  /** Cancels every waiter, and every wait that begins from now on (shutdown). */
  cancelAll(): void {
    this.closed = true;
    for (const queue of [...this.queues.values()]) for (const waiter of [...queue]) waiter.cancel();
  }
}
