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
import type { LockStore } from "../store/lock-store.js";
import { decideRw, type LiveRwGrant } from "../store/rw-decide.js";
import {
  checkRwAcquire,
  checkRwListByKey,
  checkRwWithdrawIntent,
  holdsGrants,
  pageByKey,
  modeMixError,
  mutexHeldError,
  type RwAcquireInput,
  type RwAcquireResult,
  type RwExtendInput,
  type RwForceReleaseInput,
  type RwKeyPage,
  type RwKeyView,
  type RwListInput,
  type RwLeaseView,
  type RwLockStore,
  type RwMode,
  type RwReleaseInput,
  type RwReleaseResult,
  type RwWithdrawIntentInput,
} from "../store/rw-lock-store.js";

interface Entry {
  readonly lockId: string;
  readonly mode: RwMode;
  readonly holder: Holder;
  reentry: number;
  readonly grantedAt: number;
  renewals: number;
  /** Deadline on the monotonic clock (performance.now()). */
  deadline: number;
}

interface KeyState {
  readonly key: LockKey;
  readonly grants: Map<string, Entry>;
  /** Writer intents by holder, deadline on the monotonic clock. */
  readonly intents: Map<string, { readonly holder: Holder; deadline: number }>;
}

/**
 * The read-write lock of the last-resort tier: in this process only, so no fences (like
 * {@link LocalLockStore}). Each call decides in one synchronous step after validation;
 * expiry is judged on the monotonic clock and reclaimed by that step.
 */
export class LocalRwLockStore implements RwLockStore {
  readonly tier = "local" as const;
  private readonly keys = new Map<string, KeyState>();

  /** @param mutex the process's plain lock store, so a key held as a mutex is refused */
  constructor(private readonly mutex?: LockStore) {}

  acquireRead(input: RwAcquireInput): Promise<RwAcquireResult> {
    return this.acquire("read", input);
  }

  acquireWrite(input: RwAcquireInput): Promise<RwAcquireResult> {
    return this.acquire("write", input);
  }

  private async acquire(mode: RwMode, input: RwAcquireInput): Promise<RwAcquireResult> {
    const { key, holder, leaseMs, writerPreference, intentMs } = checkRwAcquire(input);
    if (this.mutex && (await this.mutex.inspect(key))) throw mutexHeldError();
    const now = performance.now();
    const state = this.state(key, now);
    const grants = [...state.grants.values()].map(liveGrant(now));
    const intents = [...state.intents.values()].map((i) => ({
      holder: i.holder,
      remainingMs: Math.ceil(i.deadline - now),
    }));
    const decision = decideRw(mode, holder, writerPreference, grants, intents);
    switch (decision.kind) {
      case "mode-mix":
        throw modeMixError(mode);
      case "refuse":
        if (decision.registerIntent) {
          state.intents.set(holderKey(holder), { holder, deadline: now + intentMs });
        }
        this.keep(key, state);
        return {
          granted: false,
          mode,
          reason: decision.reason,
          holders: decision.holders,
          retryAfterMs: Math.max(1, Math.ceil(decision.retryAfterMs)),
          tier: "local",
        };
      case "reenter": {
        const entry = state.grants.get(decision.lockId)!;
        entry.reentry += 1;
        entry.deadline = Math.max(entry.deadline, now + leaseMs);
        return { ...view(key, entry, now), granted: true, reentered: true };
      }
      case "grant": {
        const entry: Entry = {
          lockId: newLockId(),
          mode,
          holder,
          reentry: 1,
          grantedAt: Date.now(),
          renewals: 0,
          deadline: now + leaseMs,
        };
        state.grants.set(entry.lockId, entry);
        state.intents.delete(holderKey(holder));
        this.keep(key, state);
        return { ...view(key, entry, now), granted: true, reentered: false };
      }
    }
  }

  async release(input: RwReleaseInput): Promise<RwReleaseResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const now = performance.now();
    const state = this.state(key, now);
    const entry = state.grants.get(lockId);
    if (!entry) throw new NotHolderError(lockId, "expired");
    entry.reentry -= 1;
    if (entry.reentry === 0) state.grants.delete(lockId);
    this.keep(key, state);
    return { released: entry.reentry === 0, reentry: entry.reentry, mode: entry.mode, fence: null };
  }

  async extend(input: RwExtendInput): Promise<RwLeaseView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const now = performance.now();
    const state = this.state(key, now);
    const entry = state.grants.get(lockId);
    if (!entry) {
      this.keep(key, state);
      throw new NotHolderError(lockId, "expired");
    }
    entry.deadline = now + leaseMs;
    entry.renewals += 1;
    return view(key, entry, now);
  }

  async inspect(input: LockKey): Promise<RwKeyView | null> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const now = performance.now();
    const state = this.state(key, now);
    this.keep(key, state);
    if (state.grants.size === 0 && state.intents.size === 0) return null;
    const all = [...state.grants.values()].map((e) => view(key, e, now));
    return {
      ...key,
      writer: all.find((g) => g.mode === "write") ?? null,
      readers: all.filter((g) => g.mode === "read").sort((a, b) => a.grantedAt - b.grantedAt),
      readFence: null,
      waitingWriters: state.intents.size,
      tier: "local",
    };
  }

  async forceRelease(input: RwForceReleaseInput): Promise<RwLeaseView[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = input.lockId === undefined ? undefined : validateLockId(input.lockId);
    const now = performance.now();
    const state = this.state(key, now);
    const removed: RwLeaseView[] = [];
    for (const entry of [...state.grants.values()]) {
      if (lockId !== undefined && entry.lockId !== lockId) continue;
      removed.push(view(key, entry, now));
      state.grants.delete(entry.lockId);
    }
    this.keep(key, state);
    return removed;
  }

  async withdrawIntent(input: RwWithdrawIntentInput): Promise<boolean> {
    const { key, holder } = checkRwWithdrawIntent(input);
    const state = this.state(key, performance.now());
    const withdrawn = state.intents.delete(holderKey(holder));
    this.keep(key, state);
    return withdrawn;
  }

  /** The resource's keys with a live grant, in business-key order, `limit` keys a page. */
  async list(input: RwListInput): Promise<RwKeyPage> {
    const { resource, after, limit } = checkRwListByKey(input);
    const businessKeys = localKeysAfter(this.keys.values(), resource, after);
    return pageByKey(resource, businessKeys, limit, (key) => this.inspect(key), holdsGrants);
  }

  async close(): Promise<void> {
    this.keys.clear();
  }

  /** The key's state with expired grants and intents dropped (not stored if new). */
  private state(key: LockKey, now: number): KeyState {
    const state: KeyState = this.keys.get(mapKey(key)) ?? {
      key,
      grants: new Map<string, Entry>(),
      intents: new Map<string, { readonly holder: Holder; deadline: number }>(),
    };
    for (const [id, entry] of state.grants) if (entry.deadline <= now) state.grants.delete(id);
    for (const [id, intent] of state.intents) if (intent.deadline <= now) state.intents.delete(id);
    return state;
  }

  /** Stores the key's state, or forgets the key when nothing in it is live. */
  private keep(key: LockKey, state: KeyState): void {
    if (state.grants.size === 0 && state.intents.size === 0) this.keys.delete(mapKey(key));
    else this.keys.set(mapKey(key), state);
  }
}

function liveGrant(now: number) {
  return (entry: Entry): LiveRwGrant => ({
    lockId: entry.lockId,
    mode: entry.mode,
    holder: entry.holder,
    remainingMs: Math.ceil(entry.deadline - now),
  });
}

function view(key: LockKey, entry: Entry, now: number): RwLeaseView {
  return { ...localGrantView(key, entry, now), mode: entry.mode, reentry: entry.reentry };
}

function holderKey(holder: Holder): string {
  // Holder ids cannot contain "|" (validated).
  return `${holder.clientId}|${holder.ownerId}`;
}
