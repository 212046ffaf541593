import { NotHolderError, type Tier } from "@warden/contract";
import type { CleanupQueue } from "../cleanup/cleanup-queue.js";
import type { LeaseBackend, LeaseFacts } from "../lease/lease-facts.js";
import type { RenewalClock } from "../lease/renewal-clock.js";
import type { Connection } from "../transport/connection.js";
import { classifyFailure, failureToError } from "../transport/map-error.js";
import type { RenewKind } from "../transport/lock-socket.js";
import { RenewKindUnsentError, type BulkRenewer } from "./bulk-renewer.js";
import { releaseRemote } from "./release-remote.js";

/** What the remote backend needs from its client. */
export interface RemoteBackendDeps {
  readonly connection: Connection;
  readonly cleanup: CleanupQueue;
  readonly requestTimeoutMs: number;
  readonly onError: (error: unknown, context: string) => void;
  /** Every answer says the server's current tier. */
  readonly noteTier: (tier: Tier) => void;
  /** Sends the renewals of a turn as one bulk command. */
  readonly renewer: BulkRenewer;
  /** Lines the watchdogs' renewals up into batches. */
  readonly clock: RenewalClock;
}

/**
 * Leases granted by the server: renewed in bulk (`renew`, one command for the renewals
 * of a turn) and released through `lock.release`.
 */
export class RemoteBackend implements LeaseBackend {
  readonly kind = "remote" as const;
  readonly clock: RenewalClock;

  constructor(private readonly deps: RemoteBackendDeps) {
    this.clock = deps.clock;
  }

  /**
   * Renews in the turn's bulk `renew` command; `kind: "permit"` for a semaphore permit grant,
   * `"rwlock"` for a read-write lock grant.
   *
   * @throws RenewKindUnsentError - the server does not take items of `kind`: nothing sent.
   */
  async extend(
    lease: LeaseFacts,
    leaseMs: number | undefined,
    kind?: RenewKind,
  ): Promise<{ ttlMs: number; expiresAt: number }> {
    const input = {
      resource: lease.resource,
      businessKey: lease.businessKey,
      lockId: lease.lockId,
      tier: lease.tier,
      ...(leaseMs === undefined ? {} : { leaseMs }),
      ...(kind === undefined ? {} : { kind }),
    };
    try {
      return await this.deps.renewer.renew(input);
    } catch (error) {
      if (error instanceof RenewKindUnsentError) throw error;
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
