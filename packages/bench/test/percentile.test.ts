import { describe, expect, it } from "vitest";
import { percentile, sortedSamples } from "../src/stats/percentile.js";

describe("percentile (nearest rank)", () => {
  const hundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it("picks the smallest sample that q of all samples are at or below", () => {
    expect(percentile(hundred, 0.5)).toBe(50);
    expect(percentile(hundred, 0.99)).toBe(99);
    expect(percentile(hundred, 0.999)).toBe(100);
    expect(percentile(hundred, 1)).toBe(100);
  });

  it("takes the first sample for q = 0 and the only sample of a single-sample set", () => {
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile([7], 0.999)).toBe(7);
  });

  it("is exact for p99.9 of a thousand samples: the 999th smallest", () => {
    const thousand = Float64Array.from({ length: 1_000 }, (_, i) => i);
    expect(percentile(thousand, 0.999)).toBe(998);
  });

  it("is NaN for no samples and refuses quantiles outside [0, 1]", () => {
    expect(percentile([], 0.5)).toBeNaN();
    expect(() => percentile(hundred, 1.5)).toThrow(RangeError);
    expect(() => percentile(hundred, Number.NaN)).toThrow(RangeError);
  });
});

describe("sortedSamples", () => {
  it("joins rounds and sorts numerically, not as strings", () => {
    const joined = sortedSamples([Float64Array.of(10, 2), Float64Array.of(9, 100, 1)]);
    expect([...joined]).toEqual([1, 2, 9, 10, 100]);
  });
});
