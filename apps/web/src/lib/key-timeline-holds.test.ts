import { describe, expect, it } from "vitest";
import { buildKeyTimeline, type TimelineEvent } from "./key-timeline";

// The events `event.search` reads from hold rows (docs/decisions/0070): a grant, the latest
// renewal only (with the lease it set) and the end — `expired` also for a lapsed hold.
const holder = { clientId: "svc", ownerId: "job" };
const event = (fields: Partial<TimelineEvent> & Pick<TimelineEvent, "type" | "atMs">) => ({
  lockId: "L1",
  fence: "42",
  leaseMs: null,
  ...holder,
  ...fields,
});

describe("the per-key timeline from hold rows", () => {
  it("a renewed hold that lapsed ends at the lease its latest renewal set", () => {
    const timeline = buildKeyTimeline(
      [
        event({ type: "expired", atMs: 40_000 }),
        event({ type: "extend", atMs: 20_000, leaseMs: 10_000 }),
        event({ type: "grant", atMs: 5_000, leaseMs: 10_000 }),
      ],
      new Set(),
      0,
      60_000,
    );
    expect(timeline.intervals).toHaveLength(1);
    expect(timeline.intervals[0]).toMatchObject({
      startMs: 5_000,
      endMs: 30_000,
      end: "expired",
      fence: "42",
      clientId: "svc",
    });
  });

  it("holds of one key in a row show as separate bars, with the gaps between them", () => {
    const timeline = buildKeyTimeline(
      [
        event({ type: "release", atMs: 3_000 }),
        event({ type: "grant", atMs: 1_000, leaseMs: 5_000 }),
        event({ type: "release", atMs: 9_000, lockId: "L2", fence: "43" }),
        event({ type: "grant", atMs: 6_000, lockId: "L2", fence: "43", leaseMs: 5_000 }),
      ],
      new Set(),
      0,
      10_000,
    );
    expect(timeline.intervals.map((i) => [i.lockId, i.startMs, i.endMs, i.end])).toEqual([
      ["L1", 1_000, 3_000, "released"],
      ["L2", 6_000, 9_000, "released"],
    ]);
    expect(timeline.overlaps).toEqual([]);
    expect(timeline.gaps).toHaveLength(3);
  });
});
