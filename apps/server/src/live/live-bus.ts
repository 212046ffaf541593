import { EventEmitter } from "node:events";
import type { AuditRecord } from "../audit/audit-record.js";
import type { TierSnapshot } from "@warden/core";

/** What the live subscription streams. */
export type LiveMessage =
  | { readonly kind: "event"; readonly event: AuditRecord }
  | { readonly kind: "tier"; readonly snapshot: TierSnapshot };

/**
 * The stream of audit events and tier changes for this instance's live subscribers: its
 * own, and those of other instances as the fleet bus delivers them (fleet-bus.ts), so a
 * subscriber on any instance sees the whole fleet (docs/decisions/0071).
 */
export class LiveBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** True when someone subscribes: build messages only then. */
  get active(): boolean {
    return this.emitter.listenerCount("message") > 0;
  }

  publish(message: LiveMessage): void {
    this.emitter.emit("message", message);
  }

  /** Calls `listener` for every message; returns the unsubscribe function. */
  subscribe(listener: (message: LiveMessage) => void): () => void {
    this.emitter.on("message", listener);
    return () => this.emitter.off("message", listener);
  }
}
