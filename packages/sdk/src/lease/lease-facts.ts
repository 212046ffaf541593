import type { Tier } from "@warden/contract";
import type { RenewalClock } from "./renewal-clock.js";

/** What identifies one grant: the key, its holder inside this client, the lockId and fence. */
export interface LeaseFacts {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  /** Decimal fencing token; null on the local tier. */
  readonly fence: string | null;
  readonly tier: Tier;
}

/** Where a lease is renewed and released: the server, or this process's local store. */
export interface LeaseBackend {
  readonly kind: "remote" | "local";
  /** Lines the watchdogs' renewals up so they leave together; none: each keeps its own timer. */
  readonly clock?: RenewalClock;
  /**
   * Renews `lease` to `leaseMs` from now (undefined: the resource's default).
   * @throws NotHolderError - the store refused: the lease is gone.
   * @throws Error - anything else: the outcome is unknown.
   */
  extend(
    lease: LeaseFacts,
    leaseMs: number | undefined,
  ): Promise<{ readonly ttlMs: number; readonly expiresAt: number }>;
  /** Releases every entry of `lease`; never rejects (failures are retried in the background). */
  release(lease: LeaseFacts): Promise<void>;
}
