"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import {
  acquireSplit,
  bucketsFromPoints,
  rateRows,
  type AcquireSplit,
  type RateRow,
} from "../lib/chart-rows";
import { useTRPC } from "../trpc/react";
import { useNow } from "./use-now";
import { LIVE_REFRESH_MS } from "./use-tier-status";

const WINDOW_SEC = 300;
const STEP_SEC = 5;

/** One row of the top contended resources. */
export interface ContendedRow {
  readonly resource: string;
  readonly acquires: number;
  readonly refused: number;
  readonly latencyP99Ms: number | null;
}

/** The overview page's view model. */
export interface OverviewView {
  readonly loading: boolean;
  readonly error: string | null;
  readonly liveLocks: number | null;
  readonly waiters: number | null;
  /** Acquire calls per second over the last minute. */
  readonly ratePerSec: number | null;
  /** p99 acquire latency over the last minute, in ms. */
  readonly p99LatencyMs: number | null;
  readonly split: AcquireSplit | null;
  readonly rateRows: readonly RateRow[];
  readonly topContended: readonly ContendedRow[];
  readonly instanceId: string | null;
  readonly windowSec: number;
}

/**
 * `stats.overview` (5 min totals, live locks, waiters, top contended) and `stats.series`
 * twice: one 60 s bucket for the last minute's exact rate and p99, 5 s steps for the chart.
 */
export function useOverview(): OverviewView {
  const trpc = useTRPC();
  const now = useNow(STEP_SEC * 1_000);
  const live = { refetchInterval: LIVE_REFRESH_MS };
  const overview = useQuery(trpc.stats.overview.queryOptions({ windowSec: WINDOW_SEC }, live));
  const lastMinute = useQuery(trpc.stats.series.queryOptions({ windowSec: 60, stepSec: 60 }, live));
  const series = useQuery(
    trpc.stats.series.queryOptions({ windowSec: WINDOW_SEC, stepSec: STEP_SEC }, live),
  );

  const rows = useMemo(() => {
    const points = series.data?.points ?? [];
    const toMs = (points.at(-1)?.t ?? now) + STEP_SEC * 1_000;
    return rateRows(bucketsFromPoints(points), {
      fromMs: toMs - WINDOW_SEC * 1_000,
      toMs,
      stepMs: STEP_SEC * 1_000,
    });
  }, [series.data, now]);

  const data = overview.data;
  const minute = lastMinute.data?.points.at(-1);
  return {
    loading: overview.isPending,
    error: overview.error?.message ?? null,
    liveLocks: data?.liveLocks ?? null,
    waiters: data?.waiters ?? null,
    ratePerSec: minute?.ratePerSec ?? null,
    p99LatencyMs: minute?.latencyP99Ms ?? null,
    split: data ? acquireSplit(data) : null,
    rateRows: rows,
    topContended: (data?.topContended ?? []).filter((row) => row.acquires > 0),
    instanceId: data?.instanceId ?? null,
    windowSec: WINDOW_SEC,
  };
}
