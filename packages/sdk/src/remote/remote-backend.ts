import { NotHolderError, type Tier } from "@warden/core";
import type { CleanupQueue } from "../cleanup/cleanup-queue.js";
import type { LeaseBackend, LeaseFacts } from "../lease/lease-facts.js";
import type { Connection } from "../transport/connection.js";
import { classifyFailure, failureToError } from "../transport/map-error.js";
import { releaseRemote } from "./release-remote.js";

/** What the remote backend needs from its client. */
export interface RemoteBackendDeps {
  readonly connection: Connection;
  readonly cleanup: CleanupQueue;
  readonly requestTimeoutMs: number;
  readonly onError: (error: unknown, context: string) => void;
  /** Every answer says the server's current tier. */
  readonly noteTier: (tier: Tier) => void;
}

/** Leases granted by the server: renewed and released through `lock.extend` / `lock.release`. */
export class RemoteBackend implements LeaseBackend {
  readonly kind = "remote" as const;

  constructor(private readonly deps: RemoteBackendDeps) {}

  async extend(
    lease: LeaseFacts,
    leaseMs: number | undefined,
  ): Promise<{ ttlMs: number; expiresAt: number }> {
    const input = {
      resource: lease.resource,
      businessKey: lease.businessKey,
      lockId: lease.lockId,
      tier: lease.tier,
      ...(leaseMs === undefined ? {} : { leaseMs }),
    };
    try {
      const view = await this.deps.connection.call(
        (api, call) => api.lock.extend.mutate(input, call),
        this.deps.requestTimeoutMs,
      );
      this.deps.noteTier(view.currentTier);
      return { ttlMs: view.ttlMs, expiresAt: view.expiresAt };
    } catch (error) {
      const context = { operation: "extend", resource: lease.resource, lockId: lease.lockId };
      const failure = classifyFailure(error, context);
      if (failure.kind === "answer" && failure.error instanceof NotHolderError) throw failure.error;
      throw failureToError(failure, context);
    }
  }

  async release(lease: LeaseFacts): Promise<void> {
    try {
      await releaseRemote(this.deps.connection, lease, this.deps.requestTimeoutMs);
    } catch (error) {
      this.deps.onError(error, `releasing lock ${lease.lockId}; retrying in the background`);
      // Renewals stopped before the release, so the lease ends within one lease length.
      this.deps.cleanup.releaseLater(lease, 60_000);
    }
  }
}
