import { describe, expect, it } from "vitest";
import {
  clockOffsetMs,
  countdown,
  formatAge,
  formatClock,
  formatDuration,
  formatShortDuration,
} from "./format-time";

describe("formatDuration", () => {
  it.each([
    [0, "0 ms"],
    [850, "850 ms"],
    [4_250, "4.2 s"],
    [9_999, "9.9 s"],
    [42_000, "42 s"],
    [185_000, "3 m 05 s"],
    [7_620_000, "2 h 07 m"],
    [273_600_000, "3 d 04 h"],
    [-1_500, "1.5 s"],
  ])("%d ms reads %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("says nothing misleading for a missing value", () => {
    expect(formatDuration(Number.NaN)).toBe("—");
  });
});

describe("formatShortDuration", () => {
  it("fits an axis tick", () => {
    expect([20, 1_500, 2_000, 60_000, 90_000].map(formatShortDuration)).toEqual([
      "20ms",
      "1.5s",
      "2s",
      "1m",
      "1.5m",
    ]);
  });
});

describe("formatAge", () => {
  it("never shows a negative age when the clocks disagree", () => {
    expect(formatAge(10_000, 9_000)).toBe("0 ms");
    expect(formatAge(10_000, 72_000)).toBe("1 m 02 s");
  });
});

describe("countdown", () => {
  it("rounds seconds up so a live lease never reads 0:00", () => {
    expect(countdown(10_000, 9_900)).toMatchObject({ text: "0:01", state: "ok", remainingMs: 100 });
    expect(countdown(70_000, 0)).toMatchObject({ text: "1:10" });
    expect(countdown(3_723_000, 0).text).toBe("1:02:03");
  });

  it("turns low in the last third of the lease and expired after", () => {
    expect(countdown(30_000, 0, 30_000).state).toBe("ok");
    expect(countdown(30_000, 21_000, 30_000).state).toBe("low");
    expect(countdown(30_000, 30_000, 30_000)).toEqual({
      text: "expired",
      remainingMs: 0,
      state: "expired",
    });
    expect(countdown(30_000, 45_000).state).toBe("expired");
  });
});

describe("clockOffsetMs", () => {
  it("assumes the server stamped its clock halfway through the round trip", () => {
    // Browser sent at 1000, got the answer at 1200; the server said 5100 → it is 5000 ahead.
    expect(clockOffsetMs(5_100, 1_000, 1_200)).toBe(4_000);
    expect(clockOffsetMs(900, 1_000, 1_200)).toBe(-200);
  });
});

describe("formatClock", () => {
  it("shows milliseconds so close events can be ordered by eye", () => {
    expect(formatClock(Date.UTC(2026, 0, 2, 3, 4, 5, 67), true)).toBe("03:04:05.067");
  });
});
