import type { Holder, Tier } from "@warden/core";

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
  readonly expiresAt: number;
  /** Remaining lease when the store answered, in ms. */
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** A waiter queued on the server (this server instance), as `warden.waiters` shows it. */
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
