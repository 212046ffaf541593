import { LeaseLostError, type Tier } from "@warden/contract";
import { LocalLockStore } from "@warden/core/local";
import { CleanupQueue } from "../cleanup/cleanup-queue.js";
import { Heartbeat } from "../heartbeat/heartbeat.js";
import { LeaseRegistry } from "../lease/lease-registry.js";
import type { LeaseLifecycle } from "../lease/lease.js";
import { RenewalClock } from "../lease/renewal-clock.js";
import { LocalBackend } from "../local/local-backend.js";
import { LocalModeTracker } from "../local/local-mode.js";
import { LocalWaits } from "../local/local-waits.js";
import type { ResolvedWardenOptions } from "../options/resolve-warden-options.js";
import { PolicyCache } from "../policy/policy-cache.js";
import { BulkRenewer } from "../remote/bulk-renewer.js";
import { RemoteBackend } from "../remote/remote-backend.js";
import { ShortCircuit } from "../shortcircuit/short-circuit.js";
import { Connection } from "../transport/connection.js";
import { AcquireTracker } from "./acquire-tracker.js";
import type { ClientContext } from "./client-context.js";

/** The parts of one client, wired together and running. */
export interface ClientParts {
  readonly ctx: ClientContext;
  /** Sends the client's bulk renewals (counts them). */
  readonly renewer: BulkRenewer;
  readonly lifecycle: LeaseLifecycle;
  /**
   * First step of `Warden.close`: no new acquires, the server-side waits in flight are
   * withdrawn, and the acquires in flight settle (a grant that arrives now is released).
   */
  quiesce(): Promise<void>;
  /** Ends everything; see `Warden.close`. */
  shutdown(): Promise<void>;
}

/**
 * Builds one client's parts and starts them: the connection (which starts connecting),
 * the heartbeat, the clean-up queue, and the policy prefetch of `options.resources` on
 * every connect. `owner` is the `Warden` object, the key of its ambient-owner scopes.
 */
export function buildClient(owner: object, options: ResolvedWardenOptions): ClientParts {
  const connection = new Connection(options);
  const registry = new LeaseRegistry();
  const acquiring = new AcquireTracker();
  const localWaits = new LocalWaits();
  const localStore = new LocalLockStore();
  const { requestTimeoutMs, onError } = options;
  const clock = new RenewalClock();
  const renewer = new BulkRenewer(connection, requestTimeoutMs, (tier) => noteTier(tier));
  const shortCircuit = new ShortCircuit(options.shortCircuitFor);
  connection.onReleased((keys) => shortCircuit.released(keys));
  // A revoke request reaches the lease it names; an unknown lockId (released meanwhile) is ignored.
  connection.onRevokeRequested((request) =>
    registry.byId(request.lockId)?.revokeRequested(request),
  );
  // A lost connection may have lost release notifications: forget everything seen on it.
  connection.onChange((state) => {
    if (state !== "open") shortCircuit.clear();
  });
  const noteTier = (tier: Tier) => {
    ctx.serverTier = tier;
  };
  const cleanup = new CleanupQueue({
    connection,
    registry,
    clientId: options.clientId,
    requestTimeoutMs,
    onError,
    acquiring: (resource, businessKey, ownerId) => acquiring.has(resource, businessKey, ownerId),
  });
  const ctx: ClientContext = {
    owner,
    options,
    connection,
    registry,
    acquiring,
    policies: new PolicyCache(connection, requestTimeoutMs, onError),
    cleanup,
    remote: new RemoteBackend({
      connection,
      cleanup,
      requestTimeoutMs,
      onError,
      noteTier,
      renewer,
      clock,
    }),
    localStore,
    local: new LocalBackend(localStore, (lease) =>
      localWaits.notify(lease.resource, lease.businessKey),
    ),
    localWaits,
    localMode: new LocalModeTracker(),
    shortCircuit,
    serverTier: null,
    closing: false,
  };
  const lifecycle: LeaseLifecycle = {
    ended: (lease) => {
      registry.ended(lease);
      ctx.localMode.stopped(lease.tier);
      if (lease.backendKind === "local") localWaits.notify(lease.resource, lease.businessKey);
    },
    releasing: (lease) => {
      const current = registry.byId(lease.lockId) === lease;
      registry.remove(lease);
      return current;
    },
  };
  const heartbeat = new Heartbeat({
    connection,
    localMode: ctx.localMode,
    intervalMs: options.heartbeatIntervalMs,
    requestTimeoutMs,
    onError,
    tier: (): Tier => (ctx.localMode.localSinceMs !== null ? "local" : (ctx.serverTier ?? "redis")),
  });
  connection.onChange((state) => {
    if (state === "open") for (const name of options.resources) void ctx.policies.fetch(name);
  });
  return {
    ctx,
    renewer,
    lifecycle,
    async quiesce() {
      ctx.closing = true;
      acquiring.withdrawAll();
      // Bounded: a wait the server never answers ends when the socket closes.
      if (connection.state === "open") await acquiring.acquiresSettled(requestTimeoutMs);
    },
    async shutdown() {
      ctx.closing = true;
      heartbeat.stop();
      await Promise.allSettled(
        registry
          .all()
          .map((lease) =>
            lease.terminate(new LeaseLostError(lease.lockId, "the Warden client was closed")),
          ),
      );
      // Releases of grants that crossed their caller's abort: each has its own deadline.
      await acquiring.releasesSettled();
      cleanup.close();
      clock.clear();
      await connection.close();
      await localStore.close();
    },
  };
}
