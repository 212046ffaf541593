/** An audit event of one key, as the timeline reads it. */
export interface TimelineEvent {
  readonly type: string;
  readonly atMs: number;
  readonly lockId: string | null;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  /** Lease granted or extended to, from `atMs`, in ms. */
  readonly leaseMs: number | null;
  /** A read-write grant's mode; absent (or null) for locks and permits. */
  readonly mode?: "read" | "write" | null;
}

/** How a hold ended. `live` is still held; `open` ended outside what the events show. */
export type IntervalEnd = "released" | "force-released" | "expired" | "live" | "open";

/** One hold of the key, placed on the timeline. */
export interface TimelineInterval {
  readonly lockId: string;
  /** A read-write grant's mode; null for locks and permits. */
  readonly mode: "read" | "write" | null;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly ownerId: string | null;
  readonly startMs: number;
  readonly endMs: number;
  readonly end: IntervalEnd;
  /** The grant happened before the window: the bar starts at the window's left edge. */
  readonly clippedStart: boolean;
  /** Row of the bar: holds that overlap get different lanes. */
  readonly lane: number;
  /** Position and width within the window, in percent. */
  readonly leftPct: number;
  readonly widthPct: number;
}

/** Two holds of the same key at once: a broken exclusion, or a local (unfenced) grant. */
export interface TimelineOverlap {
  readonly lockIds: readonly [string, string];
  readonly fromMs: number;
  readonly toMs: number;
}

/** A stretch of the window in which nobody held the key. */
export interface TimelineGap {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Everything the per-key timeline renders. */
export interface KeyTimeline {
  readonly intervals: readonly TimelineInterval[];
  readonly overlaps: readonly TimelineOverlap[];
  readonly gaps: readonly TimelineGap[];
  readonly lanes: number;
}

interface Open {
  lockId: string;
  mode: "read" | "write" | null;
  fence: string | null;
  clientId: string | null;
  ownerId: string | null;
  startMs: number;
  clippedStart: boolean;
  leaseEndMs: number | null;
}

type Closed = Omit<TimelineInterval, "lane" | "leftPct" | "widthPct">;

function holdsFrom(
  events: readonly TimelineEvent[],
  liveLockIds: ReadonlySet<string>,
  fromMs: number,
  toMs: number,
): Closed[] {
  const open = new Map<string, Open>();
  const ended = new Set<string>();
  const closed: Closed[] = [];
  const close = (hold: Open, endMs: number, end: IntervalEnd) => {
    open.delete(hold.lockId);
    ended.add(hold.lockId);
    closed.push({ ...hold, endMs: Math.max(hold.startMs, endMs), end });
  };
  const sorted = [...events].sort((a, b) => a.atMs - b.atMs);
  for (const event of sorted) {
    // A late renewal or release of a hold that already ended (e.g. after a force-release)
    // says nothing new about who held the key.
    if (event.lockId === null || ended.has(event.lockId)) continue;
    let hold = open.get(event.lockId);
    if (hold === undefined) {
      // A grant starts a hold; any other event of an unseen lockId means the grant was earlier.
      const granted = event.type === "grant";
      hold = {
        lockId: event.lockId,
        mode: event.mode ?? null,
        fence: event.fence,
        clientId: event.clientId,
        ownerId: event.ownerId,
        startMs: granted ? event.atMs : fromMs,
        clippedStart: !granted,
        leaseEndMs: null,
      };
      open.set(event.lockId, hold);
    } else if (event.type === "grant" && hold.clippedStart) {
      // The hold was first seen without its grant (a live grant whose grant time the store
      // does not know, or a step stamped by a clock slightly behind the granting one): the
      // grant says when it began.
      hold.startMs = event.atMs;
      hold.clippedStart = false;
    }
    hold.mode ??= event.mode ?? null;
    hold.fence ??= event.fence;
    hold.clientId ??= event.clientId;
    hold.ownerId ??= event.ownerId;
    if ((event.type === "grant" || event.type === "extend") && event.leaseMs !== null) {
      hold.leaseEndMs = event.atMs + event.leaseMs;
    }
    if (event.type === "release") close(hold, event.atMs, "released");
    else if (event.type === "force-release") close(hold, event.atMs, "force-released");
    else if (event.type === "expired")
      close(hold, Math.min(hold.leaseEndMs ?? event.atMs, event.atMs), "expired");
  }
  for (const hold of [...open.values()]) {
    if (liveLockIds.has(hold.lockId)) close(hold, toMs, "live");
    else if (hold.leaseEndMs !== null && hold.leaseEndMs <= toMs)
      close(hold, hold.leaseEndMs, "expired");
    else close(hold, toMs, "open");
  }
  return closed.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}

/**
 * Which holds of one key may overlap: `none` (a mutex: any two at once are a broken
 * exclusion), `all` (a semaphore's permits: the store bounds them by permits, not by
 * holders) or `readers` (a read-write lock: readers share, a writer shares with nobody).
 */
export type TimelineSharing = "none" | "all" | "readers";

/** Pairs of holds whose [start, end) ranges intersect and may not, under `sharing`. */
export function findOverlaps(
  holds: readonly (Pick<Closed, "lockId" | "startMs" | "endMs"> & {
    readonly mode?: "read" | "write" | null;
  })[],
  sharing: TimelineSharing = "none",
): TimelineOverlap[] {
  if (sharing === "all") return [];
  const sorted = [...holds].sort((a, b) => a.startMs - b.startMs);
  const overlaps: TimelineOverlap[] = [];
  sorted.forEach((a, index) => {
    for (const b of sorted.slice(index + 1)) {
      if (b.startMs >= a.endMs) break;
      // A grant whose mode the events do not say is not taken for a writer.
      if (sharing === "readers" && a.mode !== "write" && b.mode !== "write") continue;
      overlaps.push({
        lockIds: [a.lockId, b.lockId],
        fromMs: b.startMs,
        toMs: Math.min(a.endMs, b.endMs),
      });
    }
  });
  return overlaps;
}

/** Stretches of [fromMs, toMs) covered by no hold. */
export function findGaps(
  holds: readonly Pick<Closed, "startMs" | "endMs">[],
  fromMs: number,
  toMs: number,
): TimelineGap[] {
  const gaps: TimelineGap[] = [];
  let cursor = fromMs;
  for (const hold of [...holds].sort((a, b) => a.startMs - b.startMs)) {
    if (hold.startMs > cursor) gaps.push({ fromMs: cursor, toMs: Math.min(hold.startMs, toMs) });
    cursor = Math.max(cursor, hold.endMs);
    if (cursor >= toMs) break;
  }
  if (cursor < toMs) gaps.push({ fromMs: cursor, toMs });
  return gaps.filter((gap) => gap.toMs > gap.fromMs);
}

function assignLanes(holds: readonly Closed[]): number[] {
  const laneEnds: number[] = [];
  return holds.map((hold) => {
    let lane = laneEnds.findIndex((endMs) => endMs <= hold.startMs);
    if (lane < 0) lane = laneEnds.length;
    laneEnds[lane] = hold.endMs;
    return lane;
  });
}

/**
 * Lays out who held one key when, from its audit events (any order) and the lockIds that
 * are live now, over the window [fromMs, toMs). Overlapping holds get separate lanes; the
 * overlaps `sharing` forbids are listed, so a broken exclusion is visible at a glance; so
 * are the gaps.
 */
export function buildKeyTimeline(
  events: readonly TimelineEvent[],
  liveLockIds: ReadonlySet<string>,
  fromMs: number,
  toMs: number,
  sharing: TimelineSharing = "none",
): KeyTimeline {
  const spanMs = Math.max(1, toMs - fromMs);
  const holds = holdsFrom(events, liveLockIds, fromMs, toMs).filter(
    (hold) => hold.endMs > fromMs && hold.startMs < toMs,
  );
  const lanes = assignLanes(holds);
  const pct = (ms: number) => ((Math.min(toMs, Math.max(fromMs, ms)) - fromMs) / spanMs) * 100;
  const intervals = holds.map((hold, index) => ({
    ...hold,
    lane: lanes[index] ?? 0,
    leftPct: pct(hold.startMs),
    widthPct: Math.max(0, pct(hold.endMs) - pct(hold.startMs)),
  }));
  return {
    intervals,
    overlaps: findOverlaps(holds, sharing),
    gaps: findGaps(holds, fromMs, toMs),
    lanes: lanes.length === 0 ? 0 : Math.max(...lanes) + 1,
  };
}
