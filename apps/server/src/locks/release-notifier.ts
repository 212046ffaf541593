import { EventEmitter } from "node:events";
import type { LockKey } from "@warden/contract";
import { keyString } from "./lock-key.js";

/** Carries "this key was freed" between server instances (see redis-release-bridge.ts). */
export interface ReleaseBridge {
  publish(key: LockKey): void;
  /** Calls `onRelease` for keys other instances freed. */
  subscribe(onRelease: (key: LockKey) => void): void;
  close(): Promise<void>;
}

/**
 * Wakes this instance's waiters when a key is freed: by a release, a force-release or an
 * observed expiry on this instance (in-process EventEmitter), or on another instance
 * (through the optional bridge).
 */
export class ReleaseNotifier {
  private readonly emitter = new EventEmitter();
  /** Listeners on this instance; while none, a release only goes to the bridge. */
  private listeners = 0;

  constructor(private readonly bridge?: ReleaseBridge) {
    // One listener per waiting acquire; thousands are normal, not a leak.
    this.emitter.setMaxListeners(0);
    bridge?.subscribe((key) => {
      if (this.listeners > 0) this.emitter.emit(keyString(key));
    });
  }

  /**
   * A key was freed on this instance: wake local waiters and, unless the store knows that
   * nobody elsewhere can be waiting for it (`announce` false, docs/decisions/0206), tell
   * the other instances.
   */
  released(key: LockKey, announce = true): void {
    // Most releases wake nobody here: no key string, no emit (one of each per lock cycle).
    if (this.listeners > 0) this.emitter.emit(keyString(key));
    if (announce) this.bridge?.publish(key);
  }

  /** Calls `listener` whenever `key` is freed; returns the unsubscribe function. */
  onRelease(key: LockKey, listener: () => void): () => void {
    const name = keyString(key);
    this.emitter.on(name, listener);
    this.listeners += 1;
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      this.listeners -= 1;
      this.emitter.off(name, listener);
    };
  }

  close(): Promise<void> {
    this.emitter.removeAllListeners();
    return this.bridge?.close() ?? Promise.resolve();
  }
}
