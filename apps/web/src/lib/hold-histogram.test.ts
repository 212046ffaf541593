import { describe, expect, it } from "vitest";
import { histogramFromCumulative, holdHistogram, quantile } from "./hold-histogram";

describe("holdHistogram", () => {
  it("puts each hold in the bucket whose lower edge it reaches", () => {
    const rows = holdHistogram([0, 9, 10, 150, 199, 200, 61_000], [0, 10, 200, 60_000]);
    expect(rows.map((row) => row.count)).toEqual([2, 3, 1, 1]);
    expect(rows.map((row) => row.toMs)).toEqual([10, 200, 60_000, null]);
    expect(rows[3]?.label).toBe("≥1m");
    expect(rows[1]?.label).toBe("<200ms");
  });

  it("gives shares that add up to one and ignores garbage samples", () => {
    const rows = holdHistogram([5, 15, 25, 35, -1, Number.NaN], [0, 10, 30]);
    expect(rows.map((row) => row.count)).toEqual([1, 2, 1]);
    expect(rows.reduce((sum, row) => sum + row.share, 0)).toBeCloseTo(1);
  });

  it("has zero shares, not NaN, without samples", () => {
    expect(holdHistogram([], [0, 10]).every((row) => row.share === 0)).toBe(true);
  });
});

describe("histogramFromCumulative", () => {
  it("turns cumulative le buckets into per-bucket counts", () => {
    const rows = histogramFromCumulative([
      { leMs: null, count: 10 },
      { leMs: 100, count: 4 },
      { leMs: 1_000, count: 9 },
    ]);
    expect(rows.map((row) => [row.fromMs, row.toMs, row.count])).toEqual([
      [0, 100, 4],
      [100, 1_000, 5],
      [1_000, null, 1],
    ]);
    expect(rows[1]?.share).toBeCloseTo(0.5);
  });
});

describe("quantile", () => {
  it("uses the nearest rank, so p99.9 of 1000 samples is the largest but one", () => {
    const values = Array.from({ length: 1_000 }, (_, index) => index + 1);
    expect(quantile(values, 0.999)).toBe(999);
    expect(quantile(values, 0.5)).toBe(500);
    expect(quantile([7], 0.999)).toBe(7);
    expect(quantile([], 0.5)).toBeNull();
  });
});
