import { EventEmitter } from "node:events";
import type { LockKey } from "@warden/core";
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

  constructor(private readonly bridge?: ReleaseBridge) {
    // One listener per waiting acquire; thousands are normal, not a leak.
    this.emitter.setMaxListeners(0);
    bridge?.subscribe((key) => this.emitter.emit(keyString(key)));
  }

  /** A key was freed on this instance: wake local waiters and tell the others. */
  released(key: LockKey): void {
    this.emitter.emit(keyString(key));
    this.bridge?.publish(key);
  }

  /** Calls `listener` whenever `key` is freed; returns the unsubscribe function. */
  onRelease(key: LockKey, listener: () => void): () => void {
    const name = keyString(key);
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  close(): Promise<void> {
    this.emitter.removeAllListeners();
    return this.bridge?.close() ?? Promise.resolve();
  }
}
