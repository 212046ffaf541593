import { EventEmitter } from "node:events";
import type { AuditRecord } from "../audit/audit-record.js";
import type { TierSnapshot } from "@warden/core";

/** What the live subscription streams. */
export type LiveMessage =
  | { readonly kind: "event"; readonly event: AuditRecord }
  | { readonly kind: "tier"; readonly snapshot: TierSnapshot };

/**
 * This instance's stream of audit events and tier changes for live subscribers. Events
 * other instances handle reach the console through the audit table (event.search), not
 * through this bus (docs/decisions/0013).
 */
export class LiveBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
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
