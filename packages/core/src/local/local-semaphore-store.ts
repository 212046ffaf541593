import { performance } from "node:perf_hooks";
import { localGrantView, localKeysAfter, mapKey } from "./local-grant.js";
import {
  NotHolderError,
  newLockId,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  type Holder,
  type LockKey,
} from "@warden/contract";
import { validateWaiterId, type FairWait } from "../store/fair-wait.js";
import {
  checkPermitRef,
  checkSemaphoreAcquire,
  holdsPermits,
  retryAfterMs,
  type PermitExtendInput,
  type PermitForceReleaseInput,
  type PermitRef,
  type PermitResult,
  type PermitView,
  type SemaphoreAcquireInput,
  type SemaphoreKeyPage,
  type SemaphoreListInput,
  type SemaphoreStore,
  type SemaphoreView,
} from "../store/semaphore-store.js";
import { checkRwListByKey, pageByKey } from "../store/rw-lock-store.js";

interface Permit {
  readonly key: LockKey;
  readonly lockId: string;
  readonly holder: Holder;
  readonly permits: number;
  /** Wall-clock ms when granted (reported only). */
  readonly grantedAt: number;
  renewals: number;
  /** Deadline on the monotonic clock (performance.now()). */
  deadline: number;
}

interface KeyState {
  readonly key: LockKey;
  grants: Permit[];
  totalPermits: number | null;
  queue: { readonly waiterId: string; deadline: number }[];
}

/**
 * The last-resort tier's semaphore: permits in this process only, judged on the monotonic
 * clock; no fence (docs/decisions/0160). Every operation is one synchronous step, and an
 * acquire first drops the key's expired grants.
 */
export class LocalSemaphoreStore implements SemaphoreStore {
  readonly tier = "local" as const;
  private readonly keys = new Map<string, KeyState>();

  async acquire(input: SemaphoreAcquireInput): Promise<PermitResult> {
    const { key, holder, leaseMs, permits, totalPermits, fair, heldElsewhere } =
      checkSemaphoreAcquire(input);
    const now = performance.now();
    const state = this.state(key, true);
    state.grants = state.grants.filter((grant) => grant.deadline > now);
    const queued = fair ? queueUp(state, fair, now) : false;
    const inUse = sum(state.grants);
    if (queued || inUse + heldElsewhere + permits > totalPermits) {
      const needed = inUse + heldElsewhere + permits - totalPermits;
      return {
        granted: false,
        inUse,
        totalPermits,
        queued: queued && inUse + heldElsewhere + permits <= totalPermits,
        retryAfterMs:
          needed > 0
            ? retryAfterMs(
                state.grants.map((g) => view(g, now)),
                needed,
              )
            : 0,
        tier: "local",
      };
    }
    if (fair?.waiterId) dropWaiter(state, fair.waiterId);
    const grant: Permit = {
      key,
      lockId: newLockId(),
      holder,
      permits,
      grantedAt: Date.now(),
      renewals: 0,
      deadline: now + leaseMs,
    };
    state.grants.push(grant);
    state.totalPermits = totalPermits;
    return { ...view(grant, now), granted: true, inUse: inUse + permits, totalPermits };
  }

  async release(input: PermitRef): Promise<PermitView> {
    const { key, lockId } = checkPermitRef(input);
    const now = performance.now();
    const { state, grant } = this.owned(key, lockId, now);
    state.grants = state.grants.filter((g) => g !== grant);
    this.forgetIfIdle(key, state);
    return view(grant, now);
  }

  async extend(input: PermitExtendInput): Promise<PermitView> {
    const { key, lockId } = checkPermitRef(input);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const now = performance.now();
    const { grant } = this.owned(key, lockId, now);
    grant.deadline = now + leaseMs;
    grant.renewals += 1;
    return view(grant, now);
  }

  async inspect(input: LockKey): Promise<SemaphoreView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const now = performance.now();
    const state = this.state(key, false);
    const holders = (state?.grants ?? [])
      .filter((grant) => grant.deadline > now)
      .sort((a, b) => a.deadline - b.deadline)
      .map((grant) => view(grant, now));
    return {
      ...key,
      holders,
      inUse: sum(holders),
      totalPermits: state?.totalPermits ?? null,
      tier: "local",
    };
  }

  /** The resource's keys with a live grant, in business-key order, `limit` keys a page. */
  async list(input: SemaphoreListInput): Promise<SemaphoreKeyPage> {
    const { resource, after, limit } = checkRwListByKey(input);
    const businessKeys = localKeysAfter(this.keys.values(), resource, after);
    return pageByKey(resource, businessKeys, limit, (key) => this.inspect(key), holdsPermits);
  }

  async forceRelease(input: PermitForceReleaseInput): Promise<PermitView[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = input.lockId === undefined ? undefined : validateLockId(input.lockId);
    const now = performance.now();
    const state = this.state(key, false);
    if (!state) return [];
    const removed = state.grants.filter(
      (grant) => grant.deadline > now && (lockId === undefined || grant.lockId === lockId),
    );
    state.grants = state.grants.filter((grant) => !removed.includes(grant));
    this.forgetIfIdle(key, state);
    return removed.map((grant) => view(grant, now));
  }

  async leaveQueue(input: LockKey & { readonly waiterId: string }): Promise<boolean> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const waiterId = validateWaiterId(input.waiterId);
    const state = this.state(key, false);
    return state ? dropWaiter(state, waiterId) : false;
  }

  async close(): Promise<void> {
    this.keys.clear();
    return Promise.resolve();
  }

  private state(key: LockKey, create: true): KeyState;
  private state(key: LockKey, create: false): KeyState | undefined;
  private state(key: LockKey, create: boolean): KeyState | undefined {
    const id = mapKey(key);
    let state = this.keys.get(id);
    if (!state && create) {
      state = { key, grants: [], totalPermits: null, queue: [] };
      this.keys.set(id, state);
    }
    return state;
  }

  private owned(key: LockKey, lockId: string, now: number): { state: KeyState; grant: Permit } {
    const state = this.state(key, false);
    const grant = state?.grants.find((g) => g.lockId === lockId && g.deadline > now);
    if (!state || !grant) throw new NotHolderError(lockId, "expired");
    return { state, grant };
  }

  private forgetIfIdle(key: LockKey, state: KeyState): void {
    const now = performance.now();
    if (
      state.grants.every((grant) => grant.deadline <= now) &&
      state.queue.every((waiter) => waiter.deadline <= now)
    ) {
      this.keys.delete(mapKey(key));
    }
  }
}

/** Drops dead waiters, appends or renews the caller's place, and says whether one is ahead of it. */
function queueUp(state: KeyState, fair: FairWait, now: number): boolean {
  state.queue = state.queue.filter((waiter) => waiter.deadline > now);
  if (fair.waiterId === null) return state.queue.length > 0;
  let place = state.queue.findIndex((waiter) => waiter.waiterId === fair.waiterId);
  if (place < 0) place = state.queue.push({ waiterId: fair.waiterId, deadline: 0 }) - 1;
  state.queue[place]!.deadline = now + fair.heartbeatMs;
  return place > 0;
}

function dropWaiter(state: KeyState, waiterId: string): boolean {
  const before = state.queue.length;
  state.queue = state.queue.filter((waiter) => waiter.waiterId !== waiterId);
  return state.queue.length < before;
}

function sum(grants: readonly { readonly permits: number }[]): number {
  return grants.reduce((total, grant) => total + grant.permits, 0);
}

function view(grant: Permit, now: number): PermitView {
  return { ...localGrantView(grant.key, grant, now), permits: grant.permits };
}
