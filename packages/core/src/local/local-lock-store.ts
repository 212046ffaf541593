import { performance } from "node:perf_hooks";
import { localGrantView, mapKey, remainingMs } from "./local-grant.js";
import {
  NotHolderError,
  newLockId,
  type AcquireResult,
  type Holder,
  type LeaseView,
  type LockKey,
  validateHolder,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  validatePageSize,
  validateResource,
  InvalidArgumentError,
} from "@warden/contract";
import { StoreEventEmitter } from "../events/event-emitter.js";
import type { EventSink } from "../events/store-event.js";
import {
  QUEUED_HOLDER,
  validateFairWait,
  validateWaiterId,
  type FairWait,
} from "../store/fair-wait.js";
import type { LeaseFacts } from "../store/lease-facts.js";
import { validateQueueLimit } from "../store/queue-place.js";
import {
  LOCK_DELAY_HOLDER,
  validateLockDelayMs,
  type AcquireInput,
  type ExtendInput,
  type ForceReleaseInput,
  type LeasePage,
  type LeaveQueueInput,
  type ListInput,
  type LockDelayView,
  type LockStore,
  type QueuePlace,
  type ReadQueueInput,
  type ReleaseInput,
  type ReleaseResult,
} from "../store/lock-store.js";

interface Entry {
  readonly key: LockKey;
  readonly lockId: string;
  readonly holder: Holder;
  reentry: number;
  /** Wall-clock ms since the Unix epoch when granted (reported only, never decided on). */
  readonly grantedAt: number;
  renewals: number;
  /** Deadline on the monotonic clock (performance.now()). */
  deadline: number;
  /** Lock-delay after an involuntary end (docs/decisions/0175); 0 for none. */
  lockDelayMs: number;
}

/**
 * The last-resort tier: leases in this process only (docs/design.md#fail-closed). It excludes tasks
 * of this process from each other and nobody else, so its grants carry no fence and the console
 * turns red while it is in use. Expiry is judged on the monotonic clock, so a wall-clock jump
 * neither frees nor prolongs a lease.
 */
export class LocalLockStore implements LockStore {
  readonly tier = "local" as const;
  private readonly leases = new Map<string, Entry>();
  /** Per key, waiters in arrival order with their heartbeat deadline (monotonic clock). */
  private readonly queues = new Map<
    string,
    { readonly waiterId: string; readonly arrival: number; deadline: number }[]
  >();
  /** Per key, the end of a lock-delay in force (monotonic clock), set by an involuntary end. */
  private readonly delays = new Map<string, number>();
  /** Arrival numbers of places, growing across all keys. */
  private arrivals = 0;
  private readonly events: StoreEventEmitter;

  constructor(onEvent?: EventSink) {
    this.events = new StoreEventEmitter("local", onEvent);
  }

  async acquire(input: AcquireInput): Promise<AcquireResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const holder = validateHolder(input.holder);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const fair = validateFairWait(input.fair);
    const lockDelayMs = validateLockDelayMs(input.lockDelayMs);
    const now = performance.now();
    const blocked = fair ? this.queueUp(key, fair, now) : false;
    const current = this.live(key, now);
    if (current && !sameHolder(current.holder, holder)) {
      this.events.lock(key, { type: "refusal", holder, heldBy: current.holder });
      return {
        granted: false,
        holder: current.holder,
        ttlMs: remainingMs(current, now),
        tier: "local",
      };
    }
    if (!current && lockDelayMs > 0) {
      const waitMs = this.delayLeft(key, now);
      if (waitMs > 0) {
        this.events.lock(key, { type: "refusal", holder, heldBy: LOCK_DELAY_HOLDER });
        return { granted: false, holder: LOCK_DELAY_HOLDER, ttlMs: waitMs, tier: "local" };
      }
    }
    if (!current && blocked) {
      this.events.lock(key, { type: "refusal", holder, heldBy: QUEUED_HOLDER });
      return { granted: false, holder: QUEUED_HOLDER, ttlMs: 0, tier: "local" };
    }
    if (!current && fair?.waiterId) this.dropWaiter(key, fair.waiterId);
    const entry = current ?? {
      key,
      lockId: newLockId(),
      holder,
      reentry: 0,
      grantedAt: Date.now(),
      renewals: 0,
      deadline: now + leaseMs,
      lockDelayMs,
    };
    if (lockDelayMs > 0) entry.lockDelayMs = lockDelayMs;
    entry.reentry += 1;
    // A re-entry extends the lease but never shortens it.
    entry.deadline = Math.max(entry.deadline, now + leaseMs);
    this.leases.set(mapKey(key), entry);
    const view = toView(entry, now);
    this.events.lock(key, {
      type: "grant",
      lockId: entry.lockId,
      fence: null,
      holder,
      leaseMs,
      reentry: entry.reentry,
      grantedAt: entry.grantedAt,
      renewals: entry.renewals,
    });
    return { ...view, granted: true, reentered: entry.reentry > 1 };
  }

  async release(input: ReleaseInput): Promise<ReleaseResult> {
    const key = validateLockKey(input);
    const lockId = validateLockId(input.lockId);
    const entry = this.owned(key, lockId);
    entry.reentry -= 1;
    const released = entry.reentry === 0;
    // A voluntary release starts no lock-delay.
    if (released) this.leases.delete(mapKey(key));
    const lease = factsOfEntry(entry);
    this.events.lock(key, { type: "release", ...lease, released, reentry: entry.reentry });
    return { released, reentry: entry.reentry, lease };
  }

  async extend(input: ExtendInput): Promise<LeaseView> {
    const key = validateLockKey(input);
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const entry = this.owned(key, lockId);
    const now = performance.now();
    entry.deadline = now + leaseMs;
    entry.renewals += 1;
    const view = toView(entry, now);
    this.events.lock(key, {
      type: "extend",
      ...factsOfEntry(entry),
      leaseMs,
      expiresAt: view.expiresAt,
    });
    return view;
  }

  /**
   * True when no lease is stored at all (an expired one not yet swept counts as stored):
   * a caller can then skip {@link inspect} without a promise. While a server is reachable
   * an SDK's local store is empty, so its acquires ask this first.
   */
  get empty(): boolean {
    return this.leases.size === 0;
  }

  async inspect(input: LockKey): Promise<LeaseView | null> {
    const key = validateLockKey(input);
    const now = performance.now();
    const entry = this.live(key, now);
    return entry ? toView(entry, now) : null;
  }

  async inspectDelay(input: LockKey): Promise<LockDelayView | null> {
    const key = validateLockKey(input);
    const now = performance.now();
    if (this.live(key, now)) return null;
    const remainingMs = this.delayLeft(key, now);
    if (remainingMs <= 0) return null;
    // The end as a wall-clock instant, from the monotonic deadline itself rather than
    // now + remaining, so every read of one delay answers the same whole millisecond.
    const until = this.delays.get(mapKey(key)) ?? now + remainingMs;
    const lockDelayUntil = Math.ceil(performance.timeOrigin + until);
    return { ...key, lockDelayUntil, remainingMs, tier: "local" };
  }

  async list(input: ListInput): Promise<LeasePage> {
    const resource = validateResource(input.resource);
    const limit = validatePageSize(input.limit);
    const offset = input.cursor === undefined ? 0 : Number(input.cursor);
    if (!Number.isInteger(offset) || offset < 0) {
      throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
    }
    const now = performance.now();
    const all = [...this.leases.values()]
      .filter((entry) => entry.key.resource === resource && entry.deadline > now)
      .sort((a, b) => a.key.businessKey.localeCompare(b.key.businessKey));
    const page = all.slice(offset, offset + limit);
    const next = offset + page.length;
    return {
      leases: page.map((entry) => toView(entry, now)),
      cursor: next < all.length ? String(next) : null,
    };
  }

  async forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    const key = validateLockKey(input);
    const lockId = input.lockId === undefined ? undefined : validateLockId(input.lockId);
    const now = performance.now();
    const entry = this.live(key, now);
    if (!entry || (lockId !== undefined && entry.lockId !== lockId)) return null;
    this.leases.delete(mapKey(key));
    if (entry.lockDelayMs > 0) this.delays.set(mapKey(key), now + entry.lockDelayMs);
    this.events.lock(key, { type: "force-release", ...factsOfEntry(entry) });
    return toView(entry, now);
  }

  async leaveQueue(input: LeaveQueueInput): Promise<boolean> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    return this.dropWaiter(key, validateWaiterId(input.waiterId));
  }

  async readQueue(input: ReadQueueInput): Promise<QueuePlace[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const limit = validateQueueLimit(input.limit);
    const now = performance.now();
    const wallNow = Date.now();
    return (this.queues.get(mapKey(key)) ?? [])
      .filter((waiter) => waiter.deadline > now)
      .slice(0, limit)
      .map((waiter) => {
        const ttlMs = Math.max(1, Math.floor(waiter.deadline - now));
        return {
          waiterId: waiter.waiterId,
          arrival: waiter.arrival,
          deadline: wallNow + ttlMs,
          ttlMs,
        };
      });
  }

  async close(): Promise<void> {
    this.leases.clear();
    this.queues.clear();
    this.delays.clear();
    return;
  }

  /**
   * Drops dead waiters of the key, appends or renews `fair.waiterId`, and says whether a
   * live waiter queues before the caller (any live waiter, for a caller without a place).
   */
  private queueUp(key: LockKey, fair: FairWait, now: number): boolean {
    const id = mapKey(key);
    const queue = (this.queues.get(id) ?? []).filter((waiter) => waiter.deadline > now);
    let place = -1;
    if (fair.waiterId !== null) {
      place = queue.findIndex((waiter) => waiter.waiterId === fair.waiterId);
      if (place < 0) {
        place = queue.push({ waiterId: fair.waiterId, arrival: ++this.arrivals, deadline: 0 }) - 1;
      }
      queue[place]!.deadline = now + fair.heartbeatMs;
    }
    if (queue.length > 0) this.queues.set(id, queue);
    else this.queues.delete(id);
    return fair.waiterId === null ? queue.length > 0 : place > 0;
  }

  private dropWaiter(key: LockKey, waiterId: string): boolean {
    const id = mapKey(key);
    const queue = this.queues.get(id);
    const place = queue?.findIndex((waiter) => waiter.waiterId === waiterId) ?? -1;
    if (!queue || place < 0) return false;
    queue.splice(place, 1);
    if (queue.length === 0) this.queues.delete(id);
    return true;
  }

  /** The lock-delay left on a key, in whole ms (0: none); a past one is dropped. */
  private delayLeft(key: LockKey, now: number): number {
    const id = mapKey(key);
    const until = this.delays.get(id);
    if (until === undefined) return 0;
    if (until <= now) {
      this.delays.delete(id);
      return 0;
    }
    return Math.ceil(until - now);
  }

  /**
   * The live entry of a key; an expired one is dropped on the way, and its lock-delay (if
   * any) recorded: it runs from the lease's deadline, whenever the expiry is noticed.
   */
  private live(key: LockKey, now: number): Entry | undefined {
    const entry = this.leases.get(mapKey(key));
    if (entry && entry.deadline <= now) {
      this.leases.delete(mapKey(key));
      if (entry.lockDelayMs > 0) this.delays.set(mapKey(key), entry.deadline + entry.lockDelayMs);
      return undefined;
    }
    return entry;
  }

  private owned(key: LockKey, lockId: string): Entry {
    const entry = this.live(key, performance.now());
    if (!entry) {
      this.events.lock(key, { type: "expired", lockId });
      throw new NotHolderError(lockId, "expired");
    }
    if (entry.lockId !== lockId) throw new NotHolderError(lockId, "other-holder");
    return entry;
  }
}

function sameHolder(a: Holder, b: Holder): boolean {
  return a.clientId === b.clientId && a.ownerId === b.ownerId;
}

function toView(entry: Entry, now: number): LeaseView {
  return { ...localGrantView(entry.key, entry, now), reentry: entry.reentry };
}

function factsOfEntry(entry: Entry): LeaseFacts {
  return {
    lockId: entry.lockId,
    fence: null,
    holder: entry.holder,
    grantedAt: entry.grantedAt,
    renewals: entry.renewals,
  };
}
