"use client";

import { keepPreviousData, skipToken, useQuery } from "@tanstack/react-query";
import type { ResourceKind } from "@warden/server/schemas";
import { useMemo, useState } from "react";
import {
  bucketsFromPoints,
  holdRows,
  latencyRows,
  rateRows,
  type PercentileRow,
  type RateRow,
} from "../lib/chart-rows";
import { auditHoldDurations } from "../lib/hold-durations";
import { holdHistogram, type HistogramRow } from "../lib/hold-histogram";
import { holderRows, type HolderRow } from "../lib/holder-rows";
import {
  leaderOf,
  lockDelayRows,
  permitKeyRows,
  rwKeyRows,
  type LeaderView,
  type LockDelayRow,
  type MutexKeyState,
  type PermitKeyRow,
  type RwKeyRow,
} from "../lib/key-state";
import { holdEventsOf, liveHoldEvents, modeOfKind, type LiveGrant } from "../lib/hold-events";
import { buildKeyTimeline, type KeyTimeline, type TimelineSharing } from "../lib/key-timeline";
import { termHistory, type Term } from "../lib/term-history";
import { useTRPC } from "../trpc/react";
import { useNow } from "./use-now";
import { LIVE_REFRESH_MS } from "./use-tier-status";

const CHART_WINDOW_SEC = 300;
const CHART_STEP_SEC = 5;
/** Windows the per-key timeline offers, in ms; the first is the default. */
export const TIMELINE_WINDOWS_MS = [60_000, 300_000, 900_000] as const;
/** Most keys whose live state (permits, lock-delay) is read at once (`keyState.keys`). */
const STATE_KEYS_MAX = 50;
// Holds of one key may overlap: a semaphore's permit grants, a read-write lock's readers.
const SHARING: Readonly<Record<string, TimelineSharing>> = {
  semaphore: "all",
  rwlock: "readers",
};

/** A waiter in queue order. */
export interface WaiterRow {
  readonly businessKey: string;
  readonly clientId: string;
  readonly ownerId: string;
  readonly position: number;
  readonly waitedMs: number;
}

/** The resource detail page's view model. */
export interface ResourceDetailView {
  readonly loading: boolean;
  readonly error: string | null;
  readonly resource: {
    readonly name: string;
    readonly tenantId: string;
    readonly description: string;
    readonly defaultLeaseMs: number;
    readonly maxLeaseMs: number;
    readonly maxRenewals: number | null;
    readonly expectedHoldMs: number | null;
    readonly releaseOnDisconnectMs: number | null;
    readonly lockDelayMs: number;
    readonly kind: ResourceKind;
    readonly permits: number | null;
    readonly writerPreference: boolean;
    readonly degrade: boolean;
    readonly localFallback: "deny" | "allow";
    readonly fair: boolean;
    readonly waitReplicas: number;
    readonly retiredAt: number | null;
  } | null;
  readonly holders: readonly HolderRow[];
  readonly holdersError: string | null;
  readonly waiters: readonly WaiterRow[];
  readonly fair: boolean;
  readonly rate: readonly RateRow[];
  readonly latency: readonly PercentileRow[];
  readonly holdPercentiles: readonly PercentileRow[];
  readonly holdHistogram: readonly HistogramRow[];
  readonly holdSamples: number;
  readonly holdSummary: {
    p50Ms: number | null;
    p99Ms: number | null;
    p999Ms: number | null;
    maxMs: number | null;
    samples: number;
  } | null;
  /** Keys to pick for the timeline: live ones first, then recently seen ones. */
  readonly keys: readonly string[];
  readonly timelineKey: string | null;
  readonly setTimelineKey: (key: string) => void;
  readonly timeline: KeyTimeline | null;
  readonly timelineFromMs: number;
  readonly timelineToMs: number;
  readonly timelineWindowMs: number;
  readonly setTimelineWindowMs: (ms: number) => void;
  /** Semaphore keys with permits in use (from the recently seen keys), fullest first. */
  readonly permitKeys: readonly PermitKeyRow[];
  /** Read-write keys held or waited for (from the recently seen keys), contended first. */
  readonly rwKeys: readonly RwKeyRow[];
  /** How many recently seen keys were looked at for permits, grants or a lock-delay. */
  readonly stateKeysRead: number;
  /** Mutex keys a lock-delay holds back now (docs/decisions/0175). */
  readonly lockDelays: readonly LockDelayRow[];
  /** The chosen key's holder: for leader election, its leader (term = fence). */
  readonly leader: LeaderView | null;
  /** The chosen key's lock-delay, while nobody holds it. */
  readonly keyLockDelay: LockDelayRow | null;
  /** The chosen key's holds, newest first: for leader election, its terms. */
  readonly terms: readonly Term[];
  readonly keyStateError: string | null;
}

/**
 * Everything about one resource: its policy, live holders (countdowns tick every second
 * client-side), waiters, charts from `stats.series`, the hold-time distribution from the
 * recent audit, and the per-key timeline of who held the chosen key when.
 */
export function useResourceDetail(name: string): ResourceDetailView {
  const trpc = useTRPC();
  const now = useNow(1_000);
  const live = { refetchInterval: LIVE_REFRESH_MS, placeholderData: keepPreviousData };
  const resource = useQuery(trpc.resource.get.queryOptions({ name }));
  const holders = useQuery(trpc.holder.list.queryOptions({ resource: name, limit: 500 }, live));
  const waiters = useQuery(trpc.holder.waiters.queryOptions({ resource: name }, live));
  const series = useQuery(
    trpc.stats.series.queryOptions(
      { resource: name, windowSec: CHART_WINDOW_SEC, stepSec: CHART_STEP_SEC },
      live,
    ),
  );
  const holdTimes = useQuery(
    trpc.stats.holdTimes.queryOptions({ resource: name }, { refetchInterval: 10_000 }),
  );
  const recent = useQuery(trpc.event.search.queryOptions({ resource: name, limit: 1_000 }, live));

  const [chosenKey, setTimelineKey] = useState<string | null>(null);
  const [timelineWindowMs, setTimelineWindowMs] = useState<number>(TIMELINE_WINDOWS_MS[0]);
  const liveKeys = useMemo(
    () => [...new Set((holders.data?.holders ?? []).map((lease) => lease.businessKey))].sort(),
    [holders.data],
  );
  const keys = useMemo(() => {
    const seen = (recent.data?.events ?? []).flatMap((event) =>
      event.businessKey === null ? [] : [event.businessKey],
    );
    return [...new Set([...liveKeys, ...seen])].slice(0, 200);
  }, [liveKeys, recent.data]);
  const timelineKey = chosenKey ?? keys[0] ?? null;
  const keyEvents = useQuery(
    trpc.event.search.queryOptions(
      timelineKey === null ? skipToken : { resource: name, businessKey: timelineKey, limit: 500 },
      live,
    ),
  );

  // Live state of the chosen key, and of the recently seen keys where the list needs it: a
  // semaphore's permits, a read-write lock's readers, writer and waiting writers, a mutex's
  // lock-delays.
  const kind = resource.data?.kind;
  const lockDelayMs = resource.data?.lockDelayMs ?? 0;
  const stateKeys = useMemo(() => {
    if (kind !== "mutex" && kind !== "semaphore" && kind !== "rwlock") return [];
    const chosen = timelineKey === null ? [] : [timelineKey];
    const all = kind !== "mutex" || lockDelayMs > 0;
    return [...new Set([...chosen, ...(all ? keys : [])])].slice(0, STATE_KEYS_MAX);
  }, [kind, lockDelayMs, timelineKey, keys]);
  const keyStates = useQuery(
    trpc.keyState.keys.queryOptions(
      stateKeys.length === 0 ? skipToken : { resource: name, businessKeys: stateKeys },
      live,
    ),
  );

  const chartWindow = useMemo(() => {
    const last = series.data?.points.at(-1)?.t;
    const toMs = (last ?? now) + CHART_STEP_SEC * 1_000;
    return { fromMs: toMs - CHART_WINDOW_SEC * 1_000, toMs, stepMs: CHART_STEP_SEC * 1_000 };
  }, [series.data, now]);
  const buckets = useMemo(() => bucketsFromPoints(series.data?.points ?? []), [series.data]);

  const durations = useMemo(() => auditHoldDurations(recent.data?.events ?? []), [recent.data]);

  const stateData = keyStates.data;
  const chosenState = stateData?.keys.find((key) => key.businessKey === timelineKey);
  const chosenMutex: MutexKeyState | undefined =
    chosenState && "lease" in chosenState ? chosenState : undefined;

  // What the store holds on the chosen key now: drawn even before (or long after) its
  // grant's audit row can be read, so a held permit or lease is never missing from the timeline.
  const liveGrants = useMemo(() => {
    const live = new Map<string, LiveGrant>();
    for (const lease of holders.data?.holders ?? []) {
      if (lease.businessKey !== timelineKey) continue;
      live.set(lease.lockId, {
        lockId: lease.lockId,
        fence: lease.fence,
        clientId: lease.holder.clientId,
        ownerId: lease.holder.ownerId,
        grantedAt: lease.grantedAt,
        mode: modeOfKind(lease.kind),
      });
    }
    const grants =
      chosenState === undefined
        ? []
        : "holders" in chosenState
          ? chosenState.holders
          : "readers" in chosenState
            ? [...(chosenState.writer === null ? [] : [chosenState.writer]), ...chosenState.readers]
            : chosenState.lease === null
              ? []
              : [chosenState.lease];
    for (const grant of grants) {
      live.set(grant.lockId, {
        lockId: grant.lockId,
        fence: grant.fence,
        clientId: grant.holder.clientId,
        ownerId: grant.holder.ownerId,
        grantedAt: grant.grantedAt,
        mode: "mode" in grant ? grant.mode : null,
      });
    }
    return [...live.values()];
  }, [holders.data, chosenState, timelineKey]);

  const sharing = SHARING[kind ?? ""] ?? "none";
  const timeline = useMemo(() => {
    if (timelineKey === null || !keyEvents.data) return null;
    const fromMs = now - timelineWindowMs;
    return buildKeyTimeline(
      [...holdEventsOf(keyEvents.data.events), ...liveHoldEvents(liveGrants, fromMs)],
      new Set(liveGrants.map((grant) => grant.lockId)),
      fromMs,
      now,
      sharing,
    );
  }, [timelineKey, keyEvents.data, liveGrants, now, timelineWindowMs, sharing]);

  const liveLockId =
    chosenMutex?.lease?.lockId ??
    holders.data?.holders.find((l) => l.businessKey === timelineKey)?.lockId ??
    null;
  const terms = useMemo(
    () =>
      kind === "mutex" && keyEvents.data
        ? termHistory(
            keyEvents.data.events.map((event) => ({ ...event, atMs: event.at })),
            liveLockId,
          )
        : [],
    [kind, keyEvents.data, liveLockId],
  );
  const stateAt = keyStates.dataUpdatedAt;
  const permitKeys = useMemo(
    () =>
      stateData?.kind === "semaphore"
        ? permitKeyRows(stateData.keys, stateData.totalPermits, stateAt, now)
        : [],
    [stateData, stateAt, now],
  );
  const rwKeys = useMemo(
    () => (stateData?.kind === "rwlock" ? rwKeyRows(stateData.keys, stateAt, now) : []),
    [stateData, stateAt, now],
  );
  const lockDelays = useMemo(
    () => (stateData?.kind === "mutex" ? lockDelayRows(stateData.keys, stateAt, now) : []),
    [stateData, stateAt, now],
  );

  const data = resource.data;
  return {
    loading: resource.isPending,
    error: resource.error?.message ?? null,
    resource: data ?? null,
    holders: holders.data ? holderRows(holders.data.holders, holders.dataUpdatedAt, now) : [],
    holdersError: holders.error?.message ?? null,
    waiters: [...(waiters.data?.waiters ?? [])].sort(
      (a, b) => a.businessKey.localeCompare(b.businessKey) || a.position - b.position,
    ),
    fair: waiters.data?.fair ?? data?.fair ?? false,
    rate: rateRows(buckets, chartWindow),
    latency: latencyRows(buckets, chartWindow),
    holdPercentiles: holdRows(buckets, chartWindow),
    holdHistogram: holdHistogram(durations),
    holdSamples: durations.length,
    holdSummary: holdTimes.data ?? null,
    keys,
    timelineKey,
    setTimelineKey,
    timeline,
    timelineFromMs: now - timelineWindowMs,
    timelineToMs: now,
    timelineWindowMs,
    setTimelineWindowMs,
    permitKeys,
    rwKeys,
    stateKeysRead: stateKeys.length,
    lockDelays,
    leader: leaderOf(chosenMutex, stateAt, now),
    keyLockDelay: lockDelays.find((row) => row.businessKey === timelineKey) ?? null,
    terms,
    keyStateError: keyStates.error?.message ?? null,
  };
}
