import type { LocalLockStore } from "@warden/core/local";
import { NotHolderError } from "@warden/contract";
import type { LeaseBackend, LeaseFacts } from "../lease/lease-facts.js";

// A local grant re-entered more often than this is a bug, not a workload.
const MAX_ENTRIES = 64;

/**
 * Leases of this process's own `LocalLockStore` (the server was unreachable and the
 * resource allows local fallback): exclusion among this process's tasks only, no fence.
 */
export class LocalBackend implements LeaseBackend {
  readonly kind = "local" as const;

  constructor(
    private readonly store: LocalLockStore,
    private readonly onReleased: (lease: LeaseFacts) => void,
  ) {}

  async extend(
    lease: LeaseFacts,
    leaseMs: number | undefined,
  ): Promise<{ ttlMs: number; expiresAt: number }> {
    const view = await this.store.extend({
      resource: lease.resource,
      businessKey: lease.businessKey,
      lockId: lease.lockId,
      leaseMs: leaseMs ?? 10_000,
    });
    return { ttlMs: view.ttlMs, expiresAt: view.expiresAt };
  }

  async release(lease: LeaseFacts): Promise<void> {
    try {
      for (let entry = 0; entry < MAX_ENTRIES; entry++) {
        const { released } = await this.store.release(lease);
        if (released) break;
      }
    } catch (error) {
      if (!(error instanceof NotHolderError)) throw error;
    } finally {
      this.onReleased(lease);
    }
  }
}
