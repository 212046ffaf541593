import type { AlertFact, AlertKind, AlertRecord } from "./alert-types.js";
import type { Evaluation } from "./conditions.js";

/** How long a resolved alert stays listed (and deliverable), in ms. */
export const KEEP_RESOLVED_MS = 3_600_000;

/**
 * The alert state after one evaluation: a new condition fires, a firing one keeps its
 * `startsAt` and takes the latest wording, one that no longer holds resolves (`endsAt`
 * now), resolved ones are kept {@link KEEP_RESOLVED_MS} then dropped. Alerts of a kind
 * whose inputs could not be read keep their state unchanged.
 */
export function advance(
  previous: ReadonlyMap<string, AlertRecord>,
  evaluation: Evaluation,
  now: number,
): Map<string, AlertRecord> {
  const next = new Map<string, AlertRecord>();
  const unknown: ReadonlySet<AlertKind> = evaluation.unknown;
  for (const fact of evaluation.facts) {
    const before = previous.get(fact.id);
    next.set(fact.id, firing(fact, before, now));
  }
  for (const [id, before] of previous) {
    if (next.has(id)) continue;
    if (unknown.has(before.kind)) next.set(id, before);
    else if (before.status === "firing")
      next.set(id, { ...before, status: "resolved", endsAt: now, updatedAt: now });
    else if (before.endsAt !== null && now - before.endsAt < KEEP_RESOLVED_MS) next.set(id, before);
  }
  return next;
}

function firing(fact: AlertFact, before: AlertRecord | undefined, now: number): AlertRecord {
  if (before?.status === "firing") {
    return { ...before, ...fact, startsAt: before.startsAt, updatedAt: now };
  }
  // New, or firing again after a resolve: a new state change to notify.
  return {
    ...fact,
    startsAt: Math.min(fact.startsAt, now),
    status: "firing",
    endsAt: null,
    updatedAt: now,
    notifiedStatus: null,
    notifiedAt: null,
  };
}

/** What a receiver was last told about an alert. */
export interface Notified {
  readonly status: AlertRecord["status"];
  readonly at: number;
}

/**
 * Whether `record` needs a notification to a receiver last told `told`: once per state
 * change (firing, then resolved), and again every `repeatMs` while it keeps firing.
 * An alert that resolved before it was ever announced is not announced at all.
 */
export function isDue(
  record: AlertRecord,
  told: Notified | undefined,
  now: number,
  repeatMs: number,
): boolean {
  if (told === undefined) return record.status === "firing";
  if (told.status !== record.status) return true;
  return record.status === "firing" && now - told.at >= repeatMs;
}

/** Text that changes when anything a reader sees changes (not `updatedAt`). */
export function signature(record: AlertRecord): string {
  return JSON.stringify({ ...record, updatedAt: 0 });
}
