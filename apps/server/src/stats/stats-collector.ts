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
// Another instance's waiter counts older than this are stale (it says them every second).
const REMOTE_WAITERS_TTL_MS = 5_000;

/** One second of one instance's statistics, as instances send them to each other. */
export interface SecondSlots {
  readonly second: number;
  /** Per resource: counts, then the latency and hold histograms as `[bin, count, …]`. */
  readonly slots: Record<string, SlotWire>;
}

/** A slot on the wire: [acquires, granted, refused, timeouts, failed, renewFailures, queueDepth, latency pairs, hold pairs]. */
export type SlotWire = [number, number, number, number, number, number, number, number[], number[]];

function toWire(slot: Slot): SlotWire {
  return [
    slot.acquires,
    slot.granted,
    slot.refused,
    slot.timeouts,
    slot.failed,
    slot.renewFailures,
    slot.queueDepth,
    slot.latency.toPairs(),
    slot.hold.toPairs(),
  ];
}

function fromWire(wire: unknown): Slot | null {
  if (!Array.isArray(wire) || wire.length !== 9) return null;
  const counts = wire.slice(0, 7) as unknown[];
  if (!counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return null;
  if (!Array.isArray(wire[7]) || !Array.isArray(wire[8])) return null;
  const [acquires, granted, refused, timeouts, failed, renewFailures, queueDepth] =
    counts as number[];
  return {
    acquires: acquires!,
    granted: granted!,
    refused: refused!,
    timeouts: timeouts!,
    failed: failed!,
    renewFailures: renewFailures!,
    queueDepth: queueDepth!,
    latency: SparseHistogram.fromPairs(wire[7] as unknown[]),
    hold: SparseHistogram.fromPairs(wire[8] as unknown[]),
  };
}

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
 * Rolling per-resource statistics of the fleet: one bucket per second for the last hour
 * (a ring of 3 600) of this instance's own calls — fed by the lock path (acquire outcome
 * and latency) and by store events (hold time = release.at − grant.at) — plus the seconds
 * other instances sent (the fleet bus, docs/decisions/0071), kept per instance and
 * replaced when sent again, so a repeat never counts twice. Queries merge both: any
 * instance answers the same once the others' last second has arrived. Lost on restart
 * of every instance.
 */
export class StatsCollector {
  private readonly ring: Second[] = Array.from({ length: WINDOW_SEC }, () => ({
    second: -1,
    byResource: new Map(),
  }));

  /** Other instances' seconds: second → instance → resource → slot. */
  private readonly remote = new Map<number, Map<string, Map<string, Slot>>>();
  /** Other instances' waiters per resource, as each last said, with when it said it. */
  private readonly remoteWaiters = new Map<string, { at: number; counts: Map<string, number> }>();

  /** Takes another instance's current waiters per resource (it says so every second). */
  mergeRemoteWaiters(instance: string, counts: unknown): void {
    if (typeof counts !== "object" || counts === null) return;
    const parsed = new Map<string, number>();
    for (const [name, count] of Object.entries(counts))
      if (Number.isSafeInteger(count) && (count as number) > 0) parsed.set(name, count as number);
    this.remoteWaiters.set(instance, { at: this.now(), counts: parsed });
  }

  /**
   * Waiters per resource across the fleet: `own` (this instance's queues) plus what the
   * other instances said within the last few seconds.
   */
  fleetWaiters(own: ReadonlyMap<string, number>): Map<string, number> {
    const total = new Map(own);
    const now = this.now();
    for (const [instance, { at, counts }] of this.remoteWaiters) {
      if (now - at > REMOTE_WAITERS_TTL_MS) {
        this.remoteWaiters.delete(instance);
        continue;
      }
      for (const [name, count] of counts) total.set(name, (total.get(name) ?? 0) + count);
    }
    return total;
  }

  constructor(private readonly now: () => number = Date.now) {}

  /** This instance's own statistics of the seconds in [fromSec, toSec], non-empty only. */
  ownSeconds(fromSec: number, toSec: number): SecondSlots[] {
    const nowSec = Math.floor(this.now() / 1000);
    const seconds: SecondSlots[] = [];
    for (let sec = Math.max(fromSec, nowSec - WINDOW_SEC + 1); sec <= toSec; sec += 1) {
      const second = this.ring[((sec % WINDOW_SEC) + WINDOW_SEC) % WINDOW_SEC];
      if (!second || second.second !== sec || second.byResource.size === 0) continue;
      const slots: Record<string, SlotWire> = {};
      for (const [name, slot] of second.byResource) slots[name] = toWire(slot);
      seconds.push({ second: sec, slots });
    }
    return seconds;
  }

  /**
   * Takes one second of another instance's statistics; a second sent again replaces the
   * earlier copy. Seconds outside the window and malformed slots are ignored.
   */
  mergeRemote(instance: string, second: unknown, slots: unknown): void {
    const nowSec = Math.floor(this.now() / 1000);
    if (!Number.isSafeInteger(second)) return;
    const sec = second as number;
    if (sec <= nowSec - WINDOW_SEC || sec > nowSec + 5) return;
    if (typeof slots !== "object" || slots === null) return;
    const parsed = new Map<string, Slot>();
    for (const [name, wire] of Object.entries(slots)) {
      const slot = fromWire(wire);
      if (slot) parsed.set(name, slot);
    }
    let byInstance = this.remote.get(sec);
    if (!byInstance) {
      byInstance = new Map();
      this.remote.set(sec, byInstance);
    }
    byInstance.set(instance, parsed);
    if (this.remote.size > WINDOW_SEC + 60) this.pruneRemote(nowSec);
  }

  private pruneRemote(nowSec: number): void {
    for (const sec of this.remote.keys()) if (sec <= nowSec - WINDOW_SEC) this.remote.delete(sec);
  }

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
    for (const [sec, byInstance] of this.remote) {
      if (sec <= nowSec - windowSec || sec > nowSec) continue;
      for (const slots of byInstance.values()) for (const name of slots.keys()) resources.add(name);
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
    const add = (slots: Map<string, Slot>) => {
      for (const [name, slot] of slots) {
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
    };
    for (let sec = startSec; sec <= endSec; sec += 1) {
      const second = this.ring[((sec % WINDOW_SEC) + WINDOW_SEC) % WINDOW_SEC];
      if (second && second.second === sec) add(second.byResource);
      const others = this.remote.get(sec);
      if (others) for (const slots of others.values()) add(slots);
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
