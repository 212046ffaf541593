import { formatClock, formatDateTime } from "./format-time";

/** An audit event of one key (`event.search` by resource and businessKey). */
export interface TermEvent {
  readonly type: string;
  readonly atMs: number;
  readonly lockId: string | null;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  readonly actor: string | null;
  readonly reason: string | null;
  /** When the hold the event belongs to was granted (hold rows only), else null. */
  readonly grantedAt: number | null;
}

/**
 * How a term ended. `leading`: it is the key's live lease now; `released`: its holder let
 * go (a campaign's resign, or the end of `withLock`); `force-released`: an operator (or the
 * liveness monitor) removed it; `expired`: the lease ran out (the leader lost it);
 * `unknown`: its end is not in the events read.
 */
export type TermEnd = "leading" | "released" | "force-released" | "expired" | "unknown";

/** One hold of the key: for leader election, one leader's term (the fence). */
export interface Term {
  readonly lockId: string;
  /** The grant's fence; null on the local tier (no fence, no term). */
  readonly term: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  /** Granted at; null when the grant is older than the events read. */
  readonly fromMs: number | null;
  /** Ended at; null while leading or when the end is unknown. */
  readonly toMs: number | null;
  readonly end: TermEnd;
  /** Who ended it (force-release) and why, as the audit says. */
  readonly endActor: string | null;
  readonly endReason: string | null;
  /** Release requests made while it held the key (`revoke-requested`). */
  readonly releaseRequests: readonly { readonly atMs: number; readonly actor: string | null }[];
  /** How long the key had no holder between the previous term's end and this one's start. */
  readonly gapBeforeMs: number | null;
}

const END_OF: Record<string, TermEnd> = {
  release: "released",
  "force-release": "force-released",
  expired: "expired",
};
const HOLD_TYPES = new Set(["grant", "extend", "release", "force-release", "expired"]);

interface Draft {
  lockId: string;
  term: string | null;
  clientId: string | null;
  ownerId: string | null;
  fromMs: number | null;
  toMs: number | null;
  end: TermEnd;
  endActor: string | null;
  endReason: string | null;
  releaseRequests: { atMs: number; actor: string | null }[];
}

function compareTerms(a: Draft, b: Draft): number {
  if (a.term !== null && b.term !== null && a.term !== b.term) {
    return BigInt(a.term) < BigInt(b.term) ? -1 : 1;
  }
  return (a.fromMs ?? a.toMs ?? 0) - (b.fromMs ?? b.toMs ?? 0);
}

/**
 * The terms of one key, newest first, from its audit events (any order) and the lockId of
 * its live lease (null when nobody holds it). Each lockId is one term: its grant starts it,
 * its release, force-release or expiry ends it; a release request made meanwhile is noted.
 * The gap before a term is how long the key was leaderless (after a crash: the lease, plus
 * the resource's lock-delay).
 */
export function termHistory(events: readonly TermEvent[], liveLockId: string | null): Term[] {
  const drafts = new Map<string, Draft>();
  const requests: TermEvent[] = [];
  for (const event of [...events].sort((a, b) => a.atMs - b.atMs)) {
    if (event.lockId === null) continue;
    if (event.type === "revoke-requested") {
      requests.push(event);
      continue;
    }
    if (!HOLD_TYPES.has(event.type)) continue;
    let draft = drafts.get(event.lockId);
    if (draft === undefined) {
      draft = {
        lockId: event.lockId,
        term: event.fence,
        clientId: event.clientId,
        ownerId: event.ownerId,
        fromMs: event.type === "grant" ? event.atMs : event.grantedAt,
        toMs: null,
        end: "unknown",
        endActor: null,
        endReason: null,
        releaseRequests: [],
      };
      drafts.set(event.lockId, draft);
    }
    draft.term ??= event.fence;
    draft.clientId ??= event.clientId;
    draft.ownerId ??= event.ownerId;
    if (event.type === "grant") draft.fromMs = event.atMs;
    else draft.fromMs ??= event.grantedAt;
    const end = END_OF[event.type];
    if (end !== undefined && draft.end === "unknown") {
      draft.end = end;
      draft.toMs = event.atMs;
      draft.endActor = event.actor;
      draft.endReason = event.reason;
    }
  }
  for (const request of requests) {
    drafts.get(request.lockId ?? "")?.releaseRequests.push({
      atMs: request.atMs,
      actor: request.actor,
    });
  }
  if (liveLockId !== null) {
    const live = drafts.get(liveLockId);
    if (live !== undefined && live.end === "unknown") live.end = "leading";
  }
  const ascending = [...drafts.values()].sort(compareTerms);
  return ascending
    .map((draft, index): Term => {
      const previous = index > 0 ? ascending[index - 1] : undefined;
      const gap =
        previous?.toMs != null && draft.fromMs !== null ? draft.fromMs - previous.toMs : null;
      return { ...draft, gapBeforeMs: gap !== null && gap >= 0 ? gap : null };
    })
    .reverse();
}

/** An instant for a history table: `HH:MM:SS` today, with the date before today. */
export function formatWhen(atMs: number, nowMs: number): string {
  const at = new Date(atMs);
  const now = new Date(nowMs);
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay ? formatClock(atMs).slice(0, 8) : formatDateTime(atMs);
}
