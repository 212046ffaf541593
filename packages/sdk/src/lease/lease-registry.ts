import type { Lease } from "./lease.js";

function ownerKey(resource: string, businessKey: string, ownerId: string): string {
  // Resource names cannot contain "|" (validated), so keys never collide.
  return `${resource}|${ownerId}|${businessKey}`;
}

/**
 * The leases this client holds: by lockId (what is still ours to release) and by
 * key and owner (what a nested acquire of the same owner re-enters).
 */
export class LeaseRegistry {
  private readonly byLockId = new Map<string, Lease>();
  private readonly held = new Map<string, Lease>();

  /** Records a new lease; a lease re-granted under the same lockId replaces the old one. */
  add(lease: Lease): void {
    this.byLockId.set(lease.lockId, lease);
    this.held.set(ownerKey(lease.resource, lease.businessKey, lease.ownerId), lease);
  }

  /** The lease `ownerId` holds on the key, if it is still held. */
  heldBy(resource: string, businessKey: string, ownerId: string): Lease | undefined {
    const lease = this.held.get(ownerKey(resource, businessKey, ownerId));
    return lease?.status === "held" ? lease : undefined;
  }

  /** The newest lease with this lockId that is not released yet. */
  byId(lockId: string): Lease | undefined {
    return this.byLockId.get(lockId);
  }

  /** The lease is no longer held: a nested acquire must not re-enter it. */
  ended(lease: Lease): void {
    const key = ownerKey(lease.resource, lease.businessKey, lease.ownerId);
    if (this.held.get(key) === lease) this.held.delete(key);
  }

  /** The lease is being released: its lockId is no longer ours. */
  remove(lease: Lease): void {
    this.ended(lease);
    if (this.byLockId.get(lease.lockId) === lease) this.byLockId.delete(lease.lockId);
  }

  /** Every lease not released yet. */
  all(): Lease[] {
    return [...this.byLockId.values()];
  }
}
