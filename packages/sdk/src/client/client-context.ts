import type { Tier } from "@warden/contract";
import type { LocalLockStore } from "@warden/core/local";
import type { CleanupQueue } from "../cleanup/cleanup-queue.js";
import type { LeaseRegistry } from "../lease/lease-registry.js";
import type { LocalBackend } from "../local/local-backend.js";
import type { LocalModeTracker } from "../local/local-mode.js";
import type { LocalWaits } from "../local/local-waits.js";
import type { ResolvedWardenOptions } from "../options/resolve-warden-options.js";
import type { PolicyCache } from "../policy/policy-cache.js";
import type { RemoteBackend } from "../remote/remote-backend.js";
import type { ShortCircuit } from "../shortcircuit/short-circuit.js";
import type { Connection } from "../transport/connection.js";
import type { AcquireTracker } from "./acquire-tracker.js";

/** Everything one Warden client is made of; the acquire steps and the lock handles share it. */
export interface ClientContext {
  /** The `Warden` object itself: the key of its ambient-owner scopes. */
  readonly owner: object;
  readonly options: ResolvedWardenOptions;
  readonly connection: Connection;
  readonly registry: LeaseRegistry;
  readonly acquiring: AcquireTracker;
  readonly policies: PolicyCache;
  readonly cleanup: CleanupQueue;
  readonly remote: RemoteBackend;
  readonly localStore: LocalLockStore;
  readonly local: LocalBackend;
  readonly localWaits: LocalWaits;
  readonly localMode: LocalModeTracker;
  /** Keys seen held by others, refused locally by `tryAcquire`. */
  readonly shortCircuit: ShortCircuit;
  /** The server's tier as its last answer said; null before any answer. */
  serverTier: Tier | null;
  /** True once `close()` started: no new locks. */
  closing: boolean;
}
