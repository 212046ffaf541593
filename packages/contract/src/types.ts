/** Where grants are made: Redis (main path), MySQL (fallback) or in-process (last resort). */
export type Tier = "redis" | "mysql" | "local";

/** Who holds a lock: one SDK instance (`clientId`) and the task inside it (`ownerId`). */
export interface Holder {
  readonly clientId: string;
  readonly ownerId: string;
}

/** One lock: a business key inside a registered resource. */
export interface LockKey {
  readonly resource: string;
  readonly businessKey: string;
}

/** A live lease as a store sees it. `fence` is null only on the local tier. */
export interface LeaseView extends LockKey {
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  /** How many times the holder has entered; 1 for a first grant. */
  readonly reentry: number;
  /** When this grant was made, in ms since the Unix epoch on the store's clock (kept by re-entry). */
  readonly grantedAt: number;
  /** How many times this grant's lease was extended (a re-entry is not a renewal). */
  readonly renewals: number;
  /** Expiry in ms since the Unix epoch, on the store's clock (never the client's). */
  readonly expiresAt: number;
  /** Remaining lease in ms as the store measured it when answering. */
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** A successful acquire. `reentered` is true when the same holder entered again. */
export interface Grant extends LeaseView {
  readonly granted: true;
  readonly reentered: boolean;
}

/** A refused acquire: somebody else holds the key for another `ttlMs`. */
export interface Refusal {
  readonly granted: false;
  readonly holder: Holder;
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** Result of {@link LockStore.acquire}. */
export type AcquireResult = Grant | Refusal;
