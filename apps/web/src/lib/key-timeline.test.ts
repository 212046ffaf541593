import { describe, expect, it } from "vitest";
import { buildKeyTimeline, findGaps, findOverlaps, type TimelineEvent } from "./key-timeline";

function event(
  type: string,
  atMs: number,
  lockId: string,
  patch: Partial<TimelineEvent> = {},
): TimelineEvent {
  return {
    type,
    atMs,
    lockId,
    fence: null,
    clientId: "svc-a",
    ownerId: "task",
    leaseMs: null,
    ...patch,
  };
}

describe("buildKeyTimeline", () => {
  it("draws one bar per hold, ended by release, force-release or expiry", () => {
    const timeline = buildKeyTimeline(
      [
        event("release", 300, "A"),
        event("grant", 100, "A", { fence: "11", leaseMs: 1_000 }),
        event("grant", 400, "B", { fence: "12", leaseMs: 1_000 }),
        event("force-release", 500, "B"),
        event("grant", 600, "C", { fence: "13", leaseMs: 100 }),
      ],
      new Set(),
      0,
      1_000,
    );
    expect(timeline.intervals.map((i) => [i.lockId, i.fence, i.startMs, i.endMs, i.end])).toEqual([
      ["A", "11", 100, 300, "released"],
      ["B", "12", 400, 500, "force-released"],
      // No release: the lease ran out at grant + leaseMs.
      ["C", "13", 600, 700, "expired"],
    ]);
    expect(timeline.overlaps).toEqual([]);
    expect(timeline.lanes).toBe(1);
    expect(timeline.gaps).toEqual([
      { fromMs: 0, toMs: 100 },
      { fromMs: 300, toMs: 400 },
      { fromMs: 500, toMs: 600 },
      { fromMs: 700, toMs: 1_000 },
    ]);
  });

  it("keeps a live hold open to the right edge and extends expiry on renewal", () => {
    const timeline = buildKeyTimeline(
      [
        event("grant", 100, "A", { leaseMs: 200 }),
        event("extend", 250, "A", { leaseMs: 200 }),
        event("grant", 500, "B", { leaseMs: 100 }),
      ],
      new Set(["B"]),
      0,
      1_000,
    );
    expect(timeline.intervals.map((i) => [i.lockId, i.endMs, i.end])).toEqual([
      ["A", 450, "expired"],
      ["B", 1_000, "live"],
    ]);
  });

  it("starts a hold granted before the window at the left edge", () => {
    const timeline = buildKeyTimeline([event("release", 300, "A")], new Set(), 100, 1_100);
    expect(timeline.intervals[0]).toMatchObject({
      startMs: 100,
      clippedStart: true,
      leftPct: 0,
      widthPct: 20,
    });
  });

  it("puts overlapping holds in separate lanes and reports the overlap", () => {
    const timeline = buildKeyTimeline(
      [
        event("grant", 100, "A", { leaseMs: 1_000 }),
        event("grant", 300, "B", { leaseMs: 1_000 }),
        event("release", 500, "A"),
        event("release", 700, "B"),
        event("grant", 800, "C", { leaseMs: 1_000 }),
      ],
      new Set(["C"]),
      0,
      1_000,
    );
    expect(timeline.intervals.map((i) => [i.lockId, i.lane])).toEqual([
      ["A", 0],
      ["B", 1],
      ["C", 0],
    ]);
    expect(timeline.lanes).toBe(2);
    expect(timeline.overlaps).toEqual([{ lockIds: ["A", "B"], fromMs: 300, toMs: 500 }]);
  });

  it("ignores a late renewal of a hold that was already force-released", () => {
    const timeline = buildKeyTimeline(
      [
        event("grant", 100, "A", { fence: "7", leaseMs: 1_000 }),
        event("force-release", 300, "A"),
        // The holder's watchdog tries to renew, finds the lease gone: logged as expired.
        event("expired", 400, "A"),
      ],
      new Set(),
      0,
      1_000,
    );
    expect(timeline.intervals.map((i) => [i.lockId, i.startMs, i.endMs, i.end])).toEqual([
      ["A", 100, 300, "force-released"],
    ]);
    expect(timeline.overlaps).toEqual([]);
  });

  it("leaves out holds entirely outside the window and events without a lockId", () => {
    const timeline = buildKeyTimeline(
      [event("grant", 10, "A", { leaseMs: 20 }), { ...event("tier", 500, "x"), lockId: null }],
      new Set(),
      100,
      200,
    );
    expect(timeline.intervals).toEqual([]);
    expect(timeline.gaps).toEqual([{ fromMs: 100, toMs: 200 }]);
  });
});

describe("findOverlaps / findGaps", () => {
  it("treats touching holds (one ends as the next starts) as no overlap and no gap", () => {
    const holds = [
      { lockId: "A", startMs: 0, endMs: 10 },
      { lockId: "B", startMs: 10, endMs: 20 },
    ];
    expect(findOverlaps(holds)).toEqual([]);
    expect(findGaps(holds, 0, 20)).toEqual([]);
  });

  it("finds every pair under one long hold", () => {
    const holds = [
      { lockId: "L", startMs: 0, endMs: 100 },
      { lockId: "x", startMs: 10, endMs: 20 },
      { lockId: "y", startMs: 30, endMs: 40 },
    ];
    expect(findOverlaps(holds).map((o) => o.lockIds.join("+"))).toEqual(["L+x", "L+y"]);
  });
});
