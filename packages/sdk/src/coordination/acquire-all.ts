import {
  InvalidArgumentError,
  LeaseLostError,
  LockTimeoutError,
  validateLockKey,
  validateResource,
} from "@warden/contract";
import type { Warden } from "../client/warden.js";
import type { Lock, RevokeRequest } from "../lock/lock.js";
import type { AcquireOptions } from "../options/acquire-options.js";
import { resolveAcquire } from "../options/resolve-acquire-options.js";
import { ambientOwner, newOwnerId } from "../owner/owner-scope.js";
import "../polyfill/async-dispose.js";
import { monotonicNow } from "../time/monotonic.js";

/** Most keys one `acquireAll` may take. */
export const MAX_KEYS_PER_SET = 64;

/**
 * Options of `warden.acquireAll`: those of `acquire`, where `waitMs` is ONE deadline for
 * the whole set (default 10 s) and `ownerId` is the owner of every member.
 */
export type AcquireAllOptions = AcquireOptions;

/**
 * Checks a set of business keys and returns them in canonical order: each key
 * validated and NFC-normalized as `acquire` does, then sorted by UTF-16 code units.
 * Every caller of `acquireAll` takes keys in this one order, which is what rules out a
 * deadlock between two sets that overlap. Nothing is sent.
 *
 * @throws InvalidArgumentError - `businessKeys` is not an array, is empty, names more
 *   than 64 keys, names a key twice (after normalization), or holds an invalid key
 *   (`field` is `businessKeys` or `businessKeys[i]`).
 */
export function canonicalKeys(resource: string, businessKeys: readonly string[]): string[] {
  validateResource(resource);
  if (!Array.isArray(businessKeys)) {
    throw new InvalidArgumentError("businessKeys", "must be an array of business keys");
  }
  if (businessKeys.length === 0) {
    throw new InvalidArgumentError("businessKeys", "must name at least one key");
  }
  if (businessKeys.length > MAX_KEYS_PER_SET) {
    throw new InvalidArgumentError(
      "businessKeys",
      `names ${businessKeys.length} keys; a set takes at most ${MAX_KEYS_PER_SET}`,
    );
  }
  const seen = new Map<string, number>();
  businessKeys.forEach((raw: unknown, index) => {
    let key: string;
    try {
      key = validateLockKey({ resource, businessKey: raw as string }).businessKey;
    } catch (error) {
      if (error instanceof InvalidArgumentError) {
        throw new InvalidArgumentError(`businessKeys[${index}]`, error.reason);
      }
      throw error;
    }
    const first = seen.get(key);
    if (first !== undefined) {
      throw new InvalidArgumentError(
        `businessKeys[${index}]`,
        `repeats businessKeys[${first}] (${JSON.stringify(key)}); name each key once`,
      );
    }
    seen.set(key, index);
  });
  return [...seen.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Takes every key of `businessKeys` in `resource`, or none: see {@link Warden.acquireAll}.
 * @internal Called through `warden.acquireAll`.
 */
export async function acquireAll(
  warden: Warden,
  resource: string,
  businessKeys: readonly string[],
  options: AcquireAllOptions = {},
): Promise<LockSet> {
  const keys = canonicalKeys(resource, businessKeys);
  // The options are checked once, as acquire checks them, before anything is sent.
  const request = resolveAcquire(resource, keys[0]!, options);
  const ownerId = request.ownerId ?? ambientOwner(warden) ?? newOwnerId();
  const { waitMs, signal } = request;
  signal?.throwIfAborted();
  const deadline = monotonicNow() + waitMs;
  // Ends the wait in progress when the caller gives up or a member already taken is lost.
  const stop = new AbortController();
  const onCallerAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onCallerAbort, { once: true });
  const taken: Lock[] = [];
  const unwatch: Array<() => void> = [];
  try {
    for (const businessKey of keys) {
      const leftMs = Math.max(0, Math.floor(deadline - monotonicNow()));
      let lock: Lock;
      try {
        lock = await warden.acquire(resource, businessKey, {
          ...(request.leaseMs === undefined ? {} : { leaseMs: request.leaseMs }),
          ...(request.maxHoldMs === undefined ? {} : { maxHoldMs: request.maxHoldMs }),
          waitMs: leftMs,
          signal: stop.signal,
          ownerId,
        });
      } catch (error) {
        // One deadline for the set: the caller asked to wait waitMs, not a member's rest of it.
        if (error instanceof LockTimeoutError) throw new LockTimeoutError(waitMs);
        if (stop.signal.aborted) throw stop.signal.reason;
        throw error;
      }
      taken.push(lock);
      if (lock.signal.aborted) throw lock.signal.reason;
      const onLoss = () => stop.abort(lock.signal.reason);
      lock.signal.addEventListener("abort", onLoss, { once: true });
      unwatch.push(() => lock.signal.removeEventListener("abort", onLoss));
    }
  } catch (error) {
    // All or nothing: what was taken is released, the last taken first.
    for (const lock of taken.reverse()) await lock.release();
    throw error;
  } finally {
    signal?.removeEventListener("abort", onCallerAbort);
    for (const off of unwatch) off();
  }
  return new LockSet(resource, ownerId, taken);
}

/**
 * The handle of a set of keys taken together by `warden.acquireAll`. Members are in
 * canonical order (sorted); each keeps its own lease, watchdog and fence. `signal` aborts
 * when ANY member may be lost; `release()` releases every member at once.
 */
export class LockSet implements AsyncDisposable {
  /** The resource every member belongs to. */
  readonly resource: string;
  /** The members' business keys, in canonical (sorted) order. */
  readonly businessKeys: readonly string[];
  /** The task inside this client that holds every member. */
  readonly ownerId: string;
  /** The member locks, in the order of {@link LockSet.businessKeys}. */
  readonly locks: readonly Lock[];
  /**
   * Aborts, with the first lost member's `LeaseLostError` as reason, as soon as any
   * member may be lost (refused or unconfirmed renewal, renewal limit, `maxHoldMs`) —
   * before the store could grant that key to anyone else.
   */
  readonly signal: AbortSignal;
  /**
   * Aborts, with the first {@link RevokeRequest} as reason, when someone asks the holder of
   * ANY member to release it (docs/decisions/0176). Only a request: the set stays held.
   */
  readonly revokeSignal: AbortSignal;
  private readonly byKey: ReadonlyMap<string, Lock>;
  private readonly controller = new AbortController();
  private releasing: Promise<void> | null = null;

  /** @internal Made by `warden.acquireAll`. */
  constructor(resource: string, ownerId: string, locks: readonly Lock[]) {
    this.resource = resource;
    this.ownerId = ownerId;
    this.locks = Object.freeze([...locks]);
    this.businessKeys = Object.freeze(locks.map((lock) => lock.businessKey));
    this.byKey = new Map(locks.map((lock) => [lock.businessKey, lock]));
    this.signal = this.controller.signal;
    this.revokeSignal = AbortSignal.any(locks.map((lock) => lock.revokeSignal));
    for (const lock of locks) {
      const abort = () => {
        if (!this.controller.signal.aborted) this.controller.abort(lock.signal.reason);
      };
      if (lock.signal.aborted) abort();
      else lock.signal.addEventListener("abort", abort, { once: true });
    }
  }

  /**
   * Calls `listener` with every request that a member be released (see
   * `Lock.onRevokeRequested`); returns the unsubscribe function.
   */
  onRevokeRequested(listener: (request: RevokeRequest) => void): () => void {
    const offs = this.locks.map((lock) => lock.onRevokeRequested(listener));
    return () => {
      for (const off of offs) off();
    };
  }

  /** Each member's fence, by business key (null on the `local` tier). */
  get fences(): ReadonlyMap<string, string | null> {
    return new Map(this.locks.map((lock) => [lock.businessKey, lock.fence]));
  }

  /** True while every member is held and the set was not released. */
  get held(): boolean {
    return this.releasing === null && !this.signal.aborted && this.locks.every((l) => l.held);
  }

  /**
   * The member lock of `businessKey` (pass it to a fence guard).
   * @throws InvalidArgumentError - the key is not a member of the set.
   */
  lock(businessKey: string): Lock {
    const normalized = typeof businessKey === "string" ? businessKey.normalize("NFC") : "";
    const lock = this.byKey.get(normalized);
    if (!lock) {
      throw new InvalidArgumentError("businessKey", `is not a member of this lock set`);
    }
    return lock;
  }

  /** The fence of member `businessKey`. @throws InvalidArgumentError - not a member. */
  fence(businessKey: string): string | null {
    return this.lock(businessKey).fence;
  }

  /**
   * Renews every member now (see `Lock.extend`), all at once.
   * @throws LeaseLostError - a member is no longer held (the set's signal has aborted);
   *   otherwise the first member's error, as `Lock.extend` throws it.
   */
  async extend(leaseMs?: number): Promise<void> {
    const results = await Promise.allSettled(this.locks.map((lock) => lock.extend(leaseMs)));
    const failed = results.find((result) => result.status === "rejected");
    if (!failed) return;
    const reason: unknown = this.signal.reason;
    throw reason instanceof LeaseLostError ? reason : failed.reason;
  }

  /**
   * Releases every member, all together. Idempotent; never rejects (as `Lock.release`:
   * a release the server did not confirm is retried in the background).
   */
  release(): Promise<void> {
    this.releasing ??= Promise.all(this.locks.map((lock) => lock.release())).then(() => undefined);
    return this.releasing;
  }

  /** `await using set = await warden.acquireAll(…)` releases every member at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
