import type { Holder } from "@warden/contract";
import type { TrackedPermit } from "../live/permit-tracker.js";
import type { ResourceKind } from "../schemas/resource-policy.js";
import type { TrackedLease } from "../stats/lease-tracker.js";

/**
 * One live hold of any primitive, as the operator views count it: a mutex lease, a
 * semaphore permit grant (one hold whatever number of permits it takes) or a read or write
 * grant of a read-write lock (docs/decisions/0194).
 */
export interface LiveHold {
  /** The kind of the resource held. */
  readonly kind: ResourceKind;
  /** For a read-write grant, its mode; null for the other kinds. */
  readonly mode: "read" | "write" | null;
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  readonly tier: string;
  readonly grantedAt: number;
  readonly expiresAt: number;
  /** A mutex lease's renewals and re-entries so far (what the overview listed before 0194). */
  readonly renewals?: number;
  readonly reentries?: number;
}

/**
 * Where the live holds are known: the lease tracker (mutex leases), the permit tracker
 * (semaphore permits) and the read-write grant tracker, each the fleet's when the
 * instances share a fleet bus, else this instance's.
 */
export interface LiveHoldSources {
  readonly leases: { all(): Iterable<TrackedLease> };
  readonly permits?: { all(): Iterable<TrackedPermit> };
  readonly rwGrants?: { all(): Iterable<TrackedPermit> };
}

/** Every live hold the sources know, mutex leases first. */
export function* liveHolds(sources: LiveHoldSources): Generator<LiveHold> {
  for (const lease of sources.leases.all()) {
    yield {
      kind: "mutex",
      mode: null,
      resource: lease.resource,
      businessKey: lease.businessKey,
      lockId: lease.lockId,
      fence: lease.fence,
      holder: lease.holder,
      tier: lease.tier,
      grantedAt: lease.grantedAt,
      expiresAt: lease.expiresAt,
      renewals: lease.renewals,
      reentries: lease.reentries,
    };
  }
  for (const [kind, tracked] of [
    ["semaphore", sources.permits],
    ["rwlock", sources.rwGrants],
  ] as const) {
    for (const grant of tracked?.all() ?? []) {
      yield {
        kind,
        mode: kind === "rwlock" ? (grant.mode ?? null) : null,
        resource: grant.resource,
        businessKey: grant.businessKey,
        lockId: grant.lockId,
        fence: grant.fence,
        holder: grant.holder,
        tier: grant.tier,
        grantedAt: grant.grantedAt,
        expiresAt: grant.expiresAt,
      };
    }
  }
}

/** Live holds counted by resource and kind (a resource has one kind). */
export function countLiveHolds(
  sources: LiveHoldSources,
): { resource: string; kind: ResourceKind; count: number }[] {
  const counts = new Map<string, { resource: string; kind: ResourceKind; count: number }>();
  for (const hold of liveHolds(sources)) {
    const id = `${hold.kind}\u0000${hold.resource}`;
    const known = counts.get(id);
    if (known) known.count += 1;
    else counts.set(id, { resource: hold.resource, kind: hold.kind, count: 1 });
  }
  return [...counts.values()];
}
