import type { Holder, LockKey } from "@warden/contract";

/**
 * What the local stores (mutex, semaphore, read-write lock) share (decision 0179): the map
 * key of a lock key, and the fields every local grant's view carries.
 */

/** The facts every local grant keeps; its deadline is on the monotonic clock. */
export interface LocalGrant {
  readonly lockId: string;
  readonly holder: Holder;
  /** Wall-clock ms since the Unix epoch when granted (reported only, never decided on). */
  readonly grantedAt: number;
  readonly renewals: number;
  /** Deadline on the monotonic clock (performance.now()). */
  readonly deadline: number;
}

/** Whole ms left of `grant` at `now` (monotonic), rounded up: 0 only once it has ended. */
export function remainingMs(grant: LocalGrant, now: number): number {
  return Math.max(0, Math.ceil(grant.deadline - now));
}

/** The view fields of `grant` of `key` at `now` (monotonic): no fence, tier local. */
export function localGrantView(key: LockKey, grant: LocalGrant, now: number) {
  const ttlMs = remainingMs(grant, now);
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId: grant.lockId,
    fence: null,
    holder: grant.holder,
    grantedAt: grant.grantedAt,
    renewals: grant.renewals,
    ttlMs,
    expiresAt: Date.now() + ttlMs,
    tier: "local" as const,
  };
}

/** The in-process map key of a lock key (resource names cannot contain "|": validated). */
export function mapKey(key: LockKey): string {
  return `${key.resource}|${key.businessKey}`;
}

/**
 * The business keys of `resource` among `states` after `after` (all when null), sorted: what
 * a local store's list pages through (see pageByKey).
 */
export function localKeysAfter(
  states: Iterable<{ readonly key: LockKey }>,
  resource: string,
  after: string | null,
): string[] {
  const businessKeys: string[] = [];
  for (const { key } of states) {
    if (key.resource === resource && (after === null || key.businessKey > after)) {
      businessKeys.push(key.businessKey);
    }
  }
  return businessKeys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
