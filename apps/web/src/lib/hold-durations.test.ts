import { describe, expect, it } from "vitest";
import { holdDurations } from "./hold-durations";

describe("holdDurations", () => {
  it("pairs each grant with the event that ended it, in any input order", () => {
    expect(
      holdDurations([
        { type: "release", lockId: "a", atMs: 150 },
        { type: "grant", lockId: "b", atMs: 200 },
        { type: "grant", lockId: "a", atMs: 100 },
        { type: "extend", lockId: "b", atMs: 250 },
        { type: "force-release", lockId: "b", atMs: 1_200 },
      ]),
    ).toEqual([50, 1_000]);
  });

  it("skips holds cut by the window and keeps the first grant of a re-entry", () => {
    expect(
      holdDurations([
        { type: "release", lockId: "old", atMs: 10 },
        { type: "grant", lockId: "r", atMs: 100 },
        { type: "grant", lockId: "r", atMs: 300 },
        { type: "release", lockId: "r", atMs: 400 },
        { type: "grant", lockId: "open", atMs: 500 },
        { type: "tier", lockId: null, atMs: 600 },
      ]),
    ).toEqual([300]);
  });
});
