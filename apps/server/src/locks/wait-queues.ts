import { performance } from "node:perf_hooks";
import type { Holder, LockKey } from "@warden/core";
import { keyString } from "./lock-key.js";

/** One blocking acquire waiting for a key. */
export interface Waiter {
  readonly id: number;
  readonly key: LockKey;
  readonly holder: Holder;
  readonly waitId: string | null;
  readonly tenantId: string;
  /** When it started waiting, ms since the Unix epoch. */
  readonly since: number;
  /** Monotonic start, for the waited time. */
  readonly startedMono: number;
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
  /** 0 = next in line (meaningful for fair resources). */
  readonly position: number;
  readonly since: number;
  readonly waitedMs: number;
}

/**
 * This instance's waiters, per key in arrival order. For `fair` resources only the head
 * of a key's queue tries the store, so keys are granted first come, first served among
 * this instance's waiters; fairness across instances is open (docs/decisions/0012).
 */
export class WaitQueues {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly byWaitId = new Map<string, Waiter>();
  private nextId = 1;

  /** Adds a waiter at the back of its key's queue. */
  enqueue(init: Omit<Waiter, "id" | "since" | "startedMono">): Waiter {
    const waiter: Waiter = {
      ...init,
      id: this.nextId++,
      since: Date.now(),
      startedMono: performance.now(),
    };
    const name = keyString(waiter.key);
    const queue = this.queues.get(name) ?? [];
    queue.push(waiter);
    this.queues.set(name, queue);
    if (waiter.waitId !== null) this.byWaitId.set(waiter.waitId, waiter);
    return waiter;
  }

  /** Removes a waiter; when it was first in line, the next one is woken to try. */
  remove(waiter: Waiter, wakeNext: boolean): void {
    const name = keyString(waiter.key);
    const queue = this.queues.get(name);
    if (queue) {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      if (queue.length === 0) this.queues.delete(name);
      else if (index === 0 && wakeNext) queue[0]?.wake();
    }
    if (waiter.waitId !== null && this.byWaitId.get(waiter.waitId) === waiter) {
      this.byWaitId.delete(waiter.waitId);
    }
  }

  /** True when `waiter` is first in its key's queue. */
  isHead(waiter: Waiter): boolean {
    return this.queues.get(keyString(waiter.key))?.[0] === waiter;
  }

  /** The first waiter of a key, if any. */
  head(key: LockKey): Waiter | undefined {
    return this.queues.get(keyString(key))?.[0];
  }

  /** Withdraws the waiter sent with `waitId` by `tenantId`; false when there is none. */
  cancel(waitId: string, tenantId: string): boolean {
    const waiter = this.byWaitId.get(waitId);
    if (!waiter || waiter.tenantId !== tenantId) return false;
    waiter.cancel();
    return true;
  }

  /** Waiters of one resource (optionally one key), in queue order per key. */
  list(resource: string, businessKey?: string): WaiterView[] {
    const now = performance.now();
    const views: WaiterView[] = [];
    for (const queue of this.queues.values()) {
      const first = queue[0];
      if (!first || first.key.resource !== resource) continue;
      if (businessKey !== undefined && first.key.businessKey !== businessKey) continue;
      queue.forEach((waiter, position) =>
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

  /** Cancels every waiter (shutdown). */
  cancelAll(): void {
    for (const queue of [...this.queues.values()]) for (const waiter of [...queue]) waiter.cancel();
  }
}
