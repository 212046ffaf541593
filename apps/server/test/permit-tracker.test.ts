// What the permit tracker (semaphore permits; a second one keeps read-write grants) hands
// the fleet bus: a grant released before it was shared is never sent, one the fleet knows
// of is sent as ended, and a renewal replaces the pending grant rather than adding to it.
import { describe, expect, it } from "vitest";
import { PermitTracker, type TrackedPermit } from "../src/live/permit-tracker.js";

function permit(lockId: string, expiresAt = Date.now() + 10_000): TrackedPermit {
  return {
    tenantId: "t",
    resource: "sem",
    businessKey: "k",
    lockId,
    fence: "1",
    holder: { clientId: "c", ownerId: "o" },
    permits: 1,
    tier: "redis",
    grantedAt: Date.now(),
    expiresAt,
  };
}

describe("PermitTracker changes for the fleet bus", () => {
  it("drops a grant released before it was shared; sends the end of one that was", () => {
    const tracker = new PermitTracker();
    tracker.attachFleet();
    tracker.seen(permit("a"));
    tracker.ended("a");
    expect(tracker.takeChanges()).toEqual({ seen: [], ended: [] });

    tracker.seen(permit("b"));
    expect(tracker.takeChanges().seen.map((p) => p.lockId)).toEqual(["b"]);
    tracker.ended("b");
    expect(tracker.takeChanges()).toEqual({ seen: [], ended: ["b"] });
    expect(tracker.all()).toEqual([]);
  });

  it("sends one entry per grant however often it was renewed, with the latest expiry", () => {
    const tracker = new PermitTracker();
    tracker.attachFleet();
    tracker.seen(permit("c", 1_000));
    tracker.seen(permit("c", 2_000));
    expect(tracker.takeChanges().seen.map((p) => [p.lockId, p.expiresAt])).toEqual([["c", 2_000]]);
    // A renewal after it was shared, then a release: both go out.
    tracker.seen(permit("c", 3_000));
    tracker.ended("c");
    expect(tracker.takeChanges()).toEqual({ seen: [], ended: ["c"] });
  });

  it("sends the end of a grant learned from another instance or sent to a newcomer", () => {
    const tracker = new PermitTracker();
    tracker.attachFleet();
    tracker.adopt([permit("d")]);
    tracker.ended("d");
    expect(tracker.takeChanges()).toEqual({ seen: [], ended: ["d"] });

    tracker.seen(permit("e"));
    expect(tracker.announceAll().map((p) => p.lockId)).toEqual(["e"]);
    tracker.takeChanges();
    tracker.ended("e");
    expect(tracker.takeChanges().ended).toEqual(["e"]);
  });

  it("keeps nothing to share before the fleet is attached", () => {
    const tracker = new PermitTracker();
    tracker.seen(permit("f"));
    tracker.ended("f");
    tracker.seen(permit("g"));
    tracker.attachFleet();
    expect(tracker.takeChanges()).toEqual({ seen: [], ended: [] });
    expect(tracker.all().map((p) => p.lockId)).toEqual(["g"]);
  });
});
