import type { Holder, Tier } from "@warden/contract";

/** A live lease as `warden.inspect` shows it. Times are ms since the Unix epoch (store clock). */
export interface LockInfo {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  /** Decimal fencing token; null on the local tier. */
  readonly fence: string | null;
  /** Who holds it: an SDK instance (`clientId`) and the task inside it (`ownerId`). */
  readonly holder: Holder;
  /** Entries of the holder (re-entries counted). */
  readonly reentry: number;
  /** When this grant was made (kept by re-entry and renewals). */
  readonly grantedAt: number;
  readonly expiresAt: number;
  /** Remaining lease when the store answered, in ms. */
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** A waiter queued on any server instance of the fleet (docs/decisions/0155), as `warden.waiters` shows it. */
export interface WaiterInfo {
  readonly resource: string;
  readonly businessKey: string;
  readonly clientId: string;
  readonly ownerId: string;
  /** 0 = next in line (meaningful for `fair` resources). */
  readonly position: number;
  /** When it started waiting, ms since the Unix epoch. */
  readonly since: number;
  /** How long it has waited, in ms. */
  readonly waitedMs: number;
}

/** What `warden.stats()` counts since the client was made. */
export interface WardenStats {
  /** The local short-circuit of `tryAcquire` (see WardenOptions.shortCircuit). */
  readonly shortCircuit: {
    /** `tryAcquire` calls refused locally, without a round trip. */
    readonly refused: number;
    /** Keys remembered as held by someone else right now. */
    readonly cached: number;
    /** Entries dropped because the server said the key was freed. */
    readonly releasedByServer: number;
  };
  /** Bulk renewals: `renew` commands sent, and the leases they carried. */
  readonly renewals: { readonly commands: number; readonly leases: number };
}
