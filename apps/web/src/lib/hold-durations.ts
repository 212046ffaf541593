import { holdEventsOf, type AuditHoldEvent } from "./hold-events";

/** An audit event as hold-time extraction reads it. */
export interface HoldEvent {
  readonly type: string;
  readonly lockId: string | null;
  readonly atMs: number;
}

/**
 * Grant-to-end durations (ms) of the holds whose grant and end (release, force-release,
 * expired) are both among `events`: the sample behind the hold-time histogram. Re-entry
 * grants of the same lockId keep the first grant's time; a release that leaves re-entries
 * (`entry-released`) ends nothing.
 */
export function holdDurations(events: readonly HoldEvent[]): number[] {
  const grantedAt = new Map<string, number>();
  const durations: number[] = [];
  for (const event of [...events].sort((a, b) => a.atMs - b.atMs)) {
    if (event.lockId === null) continue;
    if (event.type === "grant") {
      if (!grantedAt.has(event.lockId)) grantedAt.set(event.lockId, event.atMs);
    } else if (
      event.type === "release" ||
      event.type === "force-release" ||
      event.type === "expired"
    ) {
      const start = grantedAt.get(event.lockId);
      if (start === undefined) continue;
      grantedAt.delete(event.lockId);
      durations.push(event.atMs - start);
    }
  }
  return durations;
}

/**
 * {@link holdDurations} of a resource's audit events as `event.search` answers them, every
 * primitive's steps read under one name (`holdEventsOf`): a semaphore's and a read-write
 * lock's holds are sampled like a lock's.
 */
export function auditHoldDurations(events: readonly AuditHoldEvent[]): number[] {
  return holdDurations(holdEventsOf(events));
}
