import { describe, expect, it } from "vitest";
import {
  acquireSplit,
  alignBuckets,
  bucketsFromPoints,
  holdRows,
  latencyRows,
  rateRows,
  type StatsBucket,
} from "./chart-rows";

function bucket(atMs: number, patch: Partial<StatsBucket> = {}): StatsBucket {
  return {
    atMs,
    grants: 0,
    refusals: 0,
    timeouts: 0,
    unavailable: 0,
    latencyP50Ms: null,
    latencyP99Ms: null,
    latencyP999Ms: null,
    holdP50Ms: null,
    holdP99Ms: null,
    holdP999Ms: null,
    queueDepth: 0,
    ...patch,
  };
}

const window = { fromMs: 100_000, toMs: 160_000, stepMs: 10_000 };

describe("alignBuckets", () => {
  it("has one slot per step of the window, gaps included", () => {
    const slots = alignBuckets([bucket(110_000), bucket(140_000)], window);
    expect(slots.map((slot) => slot.atMs)).toEqual([
      100_000, 110_000, 120_000, 130_000, 140_000, 150_000,
    ]);
    expect(slots.map((slot) => slot.bucket !== null)).toEqual([
      false,
      true,
      false,
      false,
      true,
      false,
    ]);
  });

  it("snaps a bucket that starts inside a step onto that step", () => {
    const slots = alignBuckets([bucket(123_456, { grants: 3 })], window);
    expect(slots[2]?.bucket?.grants).toBe(3);
  });

  it("is empty for a window that is empty or has no step", () => {
    expect(alignBuckets([bucket(1)], { fromMs: 10, toMs: 10, stepMs: 1 })).toEqual([]);
    expect(alignBuckets([bucket(1)], { fromMs: 0, toMs: 10, stepMs: 0 })).toEqual([]);
  });
});

describe("rateRows", () => {
  it("turns counts per bucket into outcomes per second and fills gaps with zero", () => {
    const rows = rateRows(
      [bucket(100_000, { grants: 25, refusals: 5, timeouts: 1, queueDepth: 4 })],
      window,
    );
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatchObject({
      grantsPerSec: 2.5,
      refusalsPerSec: 0.5,
      timeoutsPerSec: 0.1,
      unavailablePerSec: 0,
      queueDepth: 4,
    });
    expect(rows[1]).toMatchObject({ grantsPerSec: 0, refusalsPerSec: 0, queueDepth: 0 });
  });
});

describe("percentile rows", () => {
  it("keeps missing percentiles null so the line breaks rather than drops to zero", () => {
    const rows = latencyRows(
      [bucket(100_000, { latencyP50Ms: 0.4, latencyP99Ms: 2.1, latencyP999Ms: 9.5 })],
      window,
    );
    expect(rows[0]).toMatchObject({ p50: 0.4, p99: 2.1, p999: 9.5 });
    expect(rows[1]).toMatchObject({ p50: null, p99: null, p999: null });
  });

  it("reads hold-time percentiles, not latency, for the hold chart", () => {
    const rows = holdRows([bucket(100_000, { latencyP99Ms: 2, holdP99Ms: 1_800 })], window);
    expect(rows[0]?.p99).toBe(1_800);
  });
});

describe("bucketsFromPoints", () => {
  it("maps the server's outcome names onto the chart's", () => {
    const [first] = bucketsFromPoints([
      {
        t: 5_000,
        granted: 4,
        refused: 3,
        timeouts: 2,
        failed: 1,
        latencyP50Ms: 1,
        latencyP99Ms: 2,
        latencyP999Ms: 3,
        holdP50Ms: 10,
        holdP99Ms: 20,
        holdP999Ms: 30,
        queueDepthMax: 7,
      },
    ]);
    expect(first).toMatchObject({
      atMs: 5_000,
      grants: 4,
      refusals: 3,
      timeouts: 2,
      unavailable: 1,
      queueDepth: 7,
    });
  });
});

describe("acquireSplit", () => {
  it("counts timeouts as refusals and keeps the shares at 100 %", () => {
    expect(acquireSplit({ granted: 2, refused: 0, timeouts: 1, failed: 0 })).toEqual({
      total: 3,
      grantedPct: 67,
      refusedPct: 33,
      failedPct: 0,
    });
    const split = acquireSplit({ granted: 1, refused: 1, timeouts: 0, failed: 1 });
    expect(split.grantedPct + split.refusedPct + split.failedPct).toBe(100);
  });

  it("is all zero without traffic", () => {
    expect(acquireSplit({ granted: 0, refused: 0, timeouts: 0, failed: 0 }).grantedPct).toBe(0);
  });
});
