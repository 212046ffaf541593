import { performance } from "node:perf_hooks";
import { NotHolderError } from "../errors/not-holder-error.js";
import type { EventSink, LockEvent } from "../events/store-event.js";
import { newLockId } from "../store/lock-id.js";
import type {
  AcquireInput,
  ExtendInput,
  ForceReleaseInput,
  LeasePage,
  ListInput,
  LockStore,
  ReleaseInput,
  ReleaseResult,
} from "../store/lock-store.js";
import type { AcquireResult, Holder, LeaseView, LockKey } from "../store/types.js";
import {
  validateHolder,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  validatePageSize,
  validateResource,
} from "../validation/validate.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

interface Entry {
  readonly key: LockKey;
  readonly lockId: string;
  readonly holder: Holder;
  reentry: number;
  /** Deadline on the monotonic clock (performance.now()). */
  deadline: number;
}

/**
 * The last-resort tier: leases in this process only (S5). It excludes tasks of this
 * process from each other and nobody else, so its grants carry no fence and the console
 * turns red while it is in use. Expiry is judged on the monotonic clock, so a wall-clock
 * jump neither frees nor prolongs a lease.
 */
export class LocalLockStore implements LockStore {
  readonly tier = "local" as const;
  private readonly leases = new Map<string, Entry>();

  constructor(private readonly onEvent?: EventSink) {}

  async acquire(input: AcquireInput): Promise<AcquireResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const holder = validateHolder(input.holder);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const now = performance.now();
    const current = this.live(key, now);
    if (current && !sameHolder(current.holder, holder)) {
      this.emit({ type: "refusal", ...base(key), holder, heldBy: current.holder });
      return { granted: false, holder: current.holder, ttlMs: ttl(current, now), tier: "local" };
    }
    const entry = current ?? {
      key,
      lockId: newLockId(),
      holder,
      reentry: 0,
      deadline: now + leaseMs,
    };
    entry.reentry += 1;
    // A re-entry extends the lease but never shortens it.
    entry.deadline = Math.max(entry.deadline, now + leaseMs);
    this.leases.set(mapKey(key), entry);
    const view = toView(entry, now);
    this.emit({
      type: "grant",
      ...base(key),
      lockId: entry.lockId,
      fence: null,
      holder,
      leaseMs,
      reentry: entry.reentry,
    });
    return { ...view, granted: true, reentered: entry.reentry > 1 };
  }

  async release(input: ReleaseInput): Promise<ReleaseResult> {
    const key = validateLockKey(input);
    const lockId = validateLockId(input.lockId);
    const entry = this.owned(key, lockId);
    entry.reentry -= 1;
    if (entry.reentry === 0) this.leases.delete(mapKey(key));
    this.emit({ type: "release", ...base(key), lockId, released: entry.reentry === 0 });
    return { released: entry.reentry === 0, reentry: entry.reentry };
  }

  async extend(input: ExtendInput): Promise<LeaseView> {
    const key = validateLockKey(input);
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const entry = this.owned(key, lockId);
    const now = performance.now();
    entry.deadline = now + leaseMs;
    this.emit({ type: "extend", ...base(key), lockId, leaseMs });
    return toView(entry, now);
  }

  async inspect(input: LockKey): Promise<LeaseView | null> {
    const key = validateLockKey(input);
    const now = performance.now();
    const entry = this.live(key, now);
    return entry ? toView(entry, now) : null;
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
    this.emit({ type: "force-release", ...base(key), lockId: entry.lockId, holder: entry.holder });
    return toView(entry, now);
  }

  async close(): Promise<void> {
    this.leases.clear();
    return;
  }

  /** The live entry of a key; an expired one is dropped on the way. */
  private live(key: LockKey, now: number): Entry | undefined {
    const entry = this.leases.get(mapKey(key));
    if (entry && entry.deadline <= now) {
      this.leases.delete(mapKey(key));
      return undefined;
    }
    return entry;
  }

  private owned(key: LockKey, lockId: string): Entry {
    const entry = this.live(key, performance.now());
    if (!entry) {
      this.emit({ type: "expired", ...base(key), lockId });
      throw new NotHolderError(lockId, "expired");
    }
    if (entry.lockId !== lockId) throw new NotHolderError(lockId, "other-holder");
    return entry;
  }

  private emit(event: LockEvent): void {
    this.onEvent?.(event);
  }
}

function mapKey(key: LockKey): string {
  // Resource names cannot contain "|" (validated), so this never collides.
  return `${key.resource}|${key.businessKey}`;
}

function sameHolder(a: Holder, b: Holder): boolean {
  return a.clientId === b.clientId && a.ownerId === b.ownerId;
}

function ttl(entry: Entry, now: number): number {
  return Math.max(0, Math.ceil(entry.deadline - now));
}

function toView(entry: Entry, now: number): LeaseView {
  const ttlMs = ttl(entry, now);
  return {
    resource: entry.key.resource,
    businessKey: entry.key.businessKey,
    lockId: entry.lockId,
    fence: null,
    holder: entry.holder,
    reentry: entry.reentry,
    ttlMs,
    expiresAt: Date.now() + ttlMs,
    tier: "local",
  };
}

function base(key: LockKey) {
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    tier: "local" as const,
    at: Date.now(),
  };
}
