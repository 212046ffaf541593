import { SparseHistogram } from "./sparse-histogram.js";

/** How an acquire call ended. */
export type AcquireOutcome =
  | "granted"
  | "refused"
  | "timeout"
  | "unavailable"
  | "cancelled"
  | "error";

interface Slot {
  acquires: number;
  granted: number;
  refused: number;
  timeouts: number;
  failed: number;
  renewFailures: number;
  latency: SparseHistogram;
  hold: SparseHistogram;
  queueDepth: number;
}

interface Second {
  second: number;
  byResource: Map<string, Slot>;
}

/** One point of a series: `stepSec` seconds starting at `t` (ms since the Unix epoch). */
export interface StatsPoint {
  readonly t: number;
  readonly acquires: number;
  readonly granted: number;
  readonly refused: number;
  readonly timeouts: number;
  readonly failed: number;
  readonly renewFailures: number;
  /** Acquire calls per second over the step. */
  readonly ratePerSec: number;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly latencyP999Ms: number | null;
  readonly holdP50Ms: number | null;
  readonly holdP99Ms: number | null;
  readonly holdP999Ms: number | null;
  /** Most waiters seen at once during the step. */
  readonly queueDepthMax: number;
}

/** Hold-time distribution over a window, for the suggested lease. */
export interface HoldSummary {
  readonly samples: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly p999Ms: number | null;
  readonly maxMs: number | null;
}

const WINDOW_SEC = 3_600;

function emptySlot(): Slot {
  return {
    acquires: 0,
    granted: 0,
    refused: 0,
    timeouts: 0,
    failed: 0,
    renewFailures: 0,
    latency: new SparseHistogram(),
    hold: new SparseHistogram(),
    queueDepth: 0,
  };
}

/**
 * Rolling per-resource statistics of THIS instance: one bucket per second for the last
 * hour (a ring of 3 600), fed by the lock router (acquire outcome and latency) and by
 * store events (hold time = release.at − grant.at per lockId). Lost on restart, and each
 * instance sees only the calls it served: the console sums instances or shows one.
 */
export class StatsCollector {
  private readonly ring: Second[] = Array.from({ length: WINDOW_SEC }, () => ({
    second: -1,
    byResource: new Map(),
  }));

  constructor(private readonly now: () => number = Date.now) {}

  recordAcquire(resource: string, outcome: AcquireOutcome, latencyMs: number): void {
    const slot = this.slot(resource);
    slot.acquires += 1;
    if (outcome === "granted") slot.granted += 1;
    else if (outcome === "refused") slot.refused += 1;
    else if (outcome === "timeout") slot.timeouts += 1;
    else slot.failed += 1;
    slot.latency.add(latencyMs);
  }

  recordHold(resource: string, holdMs: number): void {
    this.slot(resource).hold.add(holdMs);
  }

  recordRenewFailure(resource: string): void {
    this.slot(resource).renewFailures += 1;
  }

  /** Notes the waiters of each resource now (sampled every second by the app). */
  sampleQueueDepth(depths: Map<string, number>): void {
    for (const [resource, depth] of depths) {
      const slot = this.slot(resource);
      slot.queueDepth = Math.max(slot.queueDepth, depth);
    }
  }

  /** A series over the last `windowSec` seconds in steps of `stepSec`, oldest first. */
  series(resource: string | undefined, windowSec = 300, stepSec = 5): StatsPoint[] {
    const nowSec = Math.floor(this.now() / 1000);
    const window = Math.min(windowSec, WINDOW_SEC);
    const firstSec = nowSec - window + 1;
    const points: StatsPoint[] = [];
    for (let start = firstSec; start <= nowSec; start += stepSec) {
      const end = Math.min(start + stepSec - 1, nowSec);
      points.push(this.point(resource, start, end));
    }
    return points;
  }

  /** Hold-time percentiles over the last `windowSec` seconds. */
  holdSummary(resource: string | undefined, windowSec = WINDOW_SEC): HoldSummary {
    const nowSec = Math.floor(this.now() / 1000);
    const merged = this.merge(resource, nowSec - Math.min(windowSec, WINDOW_SEC) + 1, nowSec);
    return {
      samples: merged.hold.count,
      p50Ms: merged.hold.quantile(0.5),
      p99Ms: merged.hold.quantile(0.99),
      p999Ms: merged.hold.quantile(0.999),
      maxMs: merged.hold.quantile(1),
    };
  }

  /** Totals per resource over the last `windowSec` seconds (top contended, overview). */
  totals(windowSec: number): Map<string, StatsPoint> {
    const nowSec = Math.floor(this.now() / 1000);
    const resources = new Set<string>();
    for (const second of this.ring) {
      if (second.second > nowSec - windowSec)
        for (const name of second.byResource.keys()) resources.add(name);
    }
    const totals = new Map<string, StatsPoint>();
    for (const name of resources)
      totals.set(name, this.point(name, nowSec - windowSec + 1, nowSec));
    return totals;
  }

  private point(resource: string | undefined, startSec: number, endSec: number): StatsPoint {
    const merged = this.merge(resource, startSec, endSec);
    const seconds = endSec - startSec + 1;
    return {
      t: startSec * 1000,
      acquires: merged.acquires,
      granted: merged.granted,
      refused: merged.refused,
      timeouts: merged.timeouts,
      failed: merged.failed,
      renewFailures: merged.renewFailures,
      ratePerSec: Math.round((merged.acquires / seconds) * 100) / 100,
      latencyP50Ms: merged.latency.quantile(0.5),
      latencyP99Ms: merged.latency.quantile(0.99),
      latencyP999Ms: merged.latency.quantile(0.999),
      holdP50Ms: merged.hold.quantile(0.5),
      holdP99Ms: merged.hold.quantile(0.99),
      holdP999Ms: merged.hold.quantile(0.999),
      queueDepthMax: merged.queueDepth,
    };
  }

  private merge(resource: string | undefined, startSec: number, endSec: number): Slot {
    const total = emptySlot();
    for (let sec = startSec; sec <= endSec; sec += 1) {
      const second = this.ring[((sec % WINDOW_SEC) + WINDOW_SEC) % WINDOW_SEC];
      if (!second || second.second !== sec) continue;
      for (const [name, slot] of second.byResource) {
        if (resource !== undefined && name !== resource) continue;
        total.acquires += slot.acquires;
        total.granted += slot.granted;
        total.refused += slot.refused;
        total.timeouts += slot.timeouts;
        total.failed += slot.failed;
        total.renewFailures += slot.renewFailures;
        total.latency.merge(slot.latency);
        total.hold.merge(slot.hold);
        total.queueDepth = Math.max(total.queueDepth, slot.queueDepth);
      }
    }
    return total;
  }

  private slot(resource: string): Slot {
    const sec = Math.floor(this.now() / 1000);
    const second = this.ring[sec % WINDOW_SEC]!;
    if (second.second !== sec) {
      second.second = sec;
      second.byResource.clear();
    }
    let slot = second.byResource.get(resource);
    if (!slot) {
      slot = emptySlot();
      second.byResource.set(resource, slot);
    }
    return slot;
  }
}
