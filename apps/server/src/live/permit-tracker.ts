import type { Holder, Tier } from "@warden/contract";

/**
 * One live semaphore permit grant as the server saw it granted or renewed. A second tracker
 * keeps the read-write lock grants the same way (each a grant of one, with its `mode`), for
 * the live-holds gauge and long-hold detection (docs/decisions/0194).
 */
export interface TrackedPermit {
  readonly tenantId: string;
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  /** Decimal string; null only on the local tier. */
  readonly fence: string | null;
  readonly holder: Holder;
  readonly permits: number;
  readonly tier: Tier;
  readonly grantedAt: number;
  /** Expiry as of the latest grant or renewal seen, ms since the Unix epoch (store clock). */
  readonly expiresAt: number;
  /** A read-write grant's mode; absent for a semaphore permit grant. */
  readonly mode?: "read" | "write";
}

/** What the fleet bus takes from the tracker to share it. */
export interface PermitChanges {
  /** Grants and renewals this instance made since the last call. */
  readonly seen: TrackedPermit[];
  /** LockIds of grants this instance saw end since the last call. */
  readonly ended: string[];
}

interface Entry {
  permit: TrackedPermit;
  /** True when this instance made the latest grant or renewal of it (it reports the expiry). */
  local: boolean;
  /**
   * True once the other instances were told of it (shared by this one, or learned from
   * them): only then does its end need telling.
   */
  announced: boolean;
}

/** Most grants and renewals kept for the fleet bus between two flushes. */
const MAX_PENDING = 50_000;

/** Fields a permit from another instance must have to be kept. */
function isPermit(value: unknown): value is TrackedPermit {
  if (typeof value !== "object" || value === null) return false;
  const p = value as Record<string, unknown>;
  const holder = p["holder"] as Record<string, unknown> | null;
  return (
    typeof p["tenantId"] === "string" &&
    typeof p["resource"] === "string" &&
    typeof p["businessKey"] === "string" &&
    typeof p["lockId"] === "string" &&
    (typeof p["fence"] === "string" || p["fence"] === null) &&
    typeof holder === "object" &&
    holder !== null &&
    typeof holder["clientId"] === "string" &&
    typeof holder["ownerId"] === "string" &&
    typeof p["permits"] === "number" &&
    typeof p["tier"] === "string" &&
    typeof p["grantedAt"] === "number" &&
    typeof p["expiresAt"] === "number" &&
    (p["mode"] === undefined || p["mode"] === "read" || p["mode"] === "write")
  );
}

/**
 * The semaphore permit grants the fleet holds, as far as this instance has seen them: its
 * own grants and renewals, and, through the fleet bus, those of the other instances (a
 * newcomer is sent every instance's list; docs/decisions/0162). A grant whose expiry passed
 * without a release or a renewal is reported as expired by the instance that last granted
 * or renewed it. Holder lists and a resource's retirement do not read this map: they ask
 * the stores, which also know the grants of instances that stopped (docs/decisions/0217).
 */
export class PermitTracker {
  private readonly byLockId = new Map<string, Entry>();
  private sharing = false;
  /** Grants and renewals not shared yet, by lockId (a later renewal replaces an earlier one). */
  private seenSince = new Map<string, TrackedPermit>();
  private endedSince: string[] = [];

  /** The fleet bus shares this instance's changes from now on. */
  attachFleet(): void {
    this.sharing = true;
  }

  /** A grant or renewal this instance made. */
  seen(permit: TrackedPermit): void {
    const announced = this.byLockId.get(permit.lockId)?.announced ?? false;
    this.byLockId.set(permit.lockId, { permit, local: true, announced });
    if (this.sharing && this.seenSince.size < MAX_PENDING)
      this.seenSince.set(permit.lockId, permit);
  }

  /** A grant this instance saw end (released). */
  ended(lockId: string): void {
    const entry = this.byLockId.get(lockId);
    if (!entry) return;
    this.byLockId.delete(lockId);
    if (!this.sharing) return;
    // A grant that ends before it was shared is never sent at all (a try-and-release cycle
    // costs the bus nothing); one the others know of is sent as ended.
    this.seenSince.delete(lockId);
    if (entry.announced && this.endedSince.length < MAX_PENDING) this.endedSince.push(lockId);
  }

  /** Grants and renewals of other instances. */
  adopt(permits: readonly unknown[]): void {
    for (const permit of permits) {
      if (!isPermit(permit)) continue;
      const known = this.byLockId.get(permit.lockId);
      if (known && known.permit.expiresAt > permit.expiresAt) continue;
      this.byLockId.set(permit.lockId, { permit, local: false, announced: true });
    }
  }

  /** Grants other instances saw end. */
  drop(lockIds: readonly unknown[]): void {
    for (const lockId of lockIds) if (typeof lockId === "string") this.byLockId.delete(lockId);
  }

  /** What changed here since the last call (for the fleet bus). */
  takeChanges(): PermitChanges {
    const seen = [...this.seenSince.values()];
    for (const permit of seen) {
      const entry = this.byLockId.get(permit.lockId);
      if (entry) entry.announced = true;
    }
    const changes = { seen, ended: this.endedSince };
    this.seenSince = new Map();
    this.endedSince = [];
    return changes;
  }

  /** Every grant known, sent to a newcomer: from now on their ends are news to share too. */
  announceAll(): TrackedPermit[] {
    for (const entry of this.byLockId.values()) entry.announced = true;
    return this.all();
  }

  /** Every grant known. */
  all(): TrackedPermit[] {
    return [...this.byLockId.values()].map((entry) => entry.permit);
  }

  /** Live grants known per resource (the console's and metrics' count). */
  countsByResource(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { permit } of this.byLockId.values())
      counts.set(permit.resource, (counts.get(permit.resource) ?? 0) + 1);
    return counts;
  }

  /**
   * Forgets the grants whose expiry is more than `graceMs` past at `now`; returns those
   * this instance granted or renewed last (its to report), the others' are theirs.
   */
  sweep(now: number, graceMs: number): TrackedPermit[] {
    const lapsed: TrackedPermit[] = [];
    for (const [lockId, entry] of this.byLockId) {
      if (entry.permit.expiresAt + graceMs > now) continue;
      this.byLockId.delete(lockId);
      if (entry.local) lapsed.push(entry.permit);
    }
    return lapsed;
  }
}
