import type { LockKey } from "@warden/contract";
import { keyString } from "./lock-key.js";

/** Carries "this key was freed" between server instances (see redis-release-bridge.ts). */
export interface ReleaseBridge {
  publish(key: LockKey): void;
  /** Calls `onRelease` for keys other instances freed. */
  subscribe(onRelease: (key: LockKey) => void): void;
  close(): Promise<void>;
}

/** What a key's listeners are kept as: most keys have one, so no array for it. */
type Listeners = (() => void) | (() => void)[];

/**
 * Wakes this instance's waiters when a key is freed: by a release, a force-release or an
 * observed expiry on this instance, or on another instance (through the optional bridge).
 *
 * The listeners are a plain map by key, not an EventEmitter: every watched try-acquire of
 * the lock protocol adds a listener and removes it again within its call, and the
 * emitter's per-name bookkeeping (a property added to and deleted from its events object,
 * the `newListener`/`removeListener` checks) was ~3 % of a busy server's CPU
 * (docs/decisions/0212). Like the emitter, a release calls the listeners registered when it
 * began, in the order they were added.
 */
export class ReleaseNotifier {
  /** Listeners on this instance by key string; while none, a release only goes to the bridge. */
  private readonly listeners = new Map<string, Listeners>();

  constructor(private readonly bridge?: ReleaseBridge) {
    bridge?.subscribe((key) => {
      if (this.listeners.size > 0) this.wake(key);
    });
  }

  /**
   * A key was freed on this instance: wake local waiters and, unless the store knows that
   * nobody elsewhere can be waiting for it (`announce` false, docs/decisions/0206), tell
   * the other instances.
   */
  released(key: LockKey, announce = true): void {
    // Most releases wake nobody here: no key string, no lookup (one of each per lock cycle).
    if (this.listeners.size > 0) this.wake(key);
    if (announce) this.bridge?.publish(key);
  }

  /**
   * Calls `listener` whenever `key` is freed; returns the unsubscribe function (a second
   * call does nothing). Thousands of listeners on one key are normal (one per waiting
   * acquire), not a leak.
   */
  onRelease(key: LockKey, listener: () => void): () => void {
    const name = keyString(key);
    const current = this.listeners.get(name);
    if (current === undefined) this.listeners.set(name, listener);
    else if (typeof current === "function") this.listeners.set(name, [current, listener]);
    else current.push(listener);
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      this.remove(name, listener);
    };
  }

  close(): Promise<void> {
    this.listeners.clear();
    return this.bridge?.close() ?? Promise.resolve();
  }

  private wake(key: LockKey): void {
    const current = this.listeners.get(keyString(key));
    if (current === undefined) return;
    if (typeof current === "function") {
      current();
      return;
    }
    // A copy: listeners that unsubscribe (or others that subscribe) meanwhile do not change
    // who this release wakes.
    for (const listener of current.slice()) listener();
  }

  private remove(name: string, listener: () => void): void {
    const current = this.listeners.get(name);
    if (current === undefined) return;
    if (current === listener) {
      this.listeners.delete(name);
      return;
    }
    if (typeof current === "function") return;
    const index = current.lastIndexOf(listener);
    if (index < 0) return;
    current.splice(index, 1);
    if (current.length === 1) this.listeners.set(name, current[0]!);
  }
}
