// The fleet view's own rules (docs/decisions/0135): which entries are stale, which tier
// views are mismatched, and that a damaged or foreign entry is left out, not trusted.
import { describe, expect, it } from "vitest";
import {
  fleetViewOf,
  parseAnnouncement,
  type InstanceAnnouncement,
} from "../src/instances/instance-entry.js";

function announcement(
  id: string,
  tier: Partial<InstanceAnnouncement["tier"]> = {},
): InstanceAnnouncement {
  return {
    id,
    name: id.split(":")[0]!,
    version: "0.1.0",
    host: "h",
    pid: 1,
    startedAt: 1_000,
    uptimeMs: 5_000,
    ttlMs: 10_000,
    connections: { lockSockets: 2, trpcSockets: 0, sseStreams: 1 },
    tier: { tier: "redis", version: 7, epoch: 3, forced: false, decidedAlone: false, ...tier },
  };
}

describe("fleetViewOf", () => {
  it("puts its own entry first, then by name, with lastSeenAt on the answering clock", () => {
    const view = fleetViewOf(
      [
        { announcement: announcement("c:1"), ageMs: 100 },
        { announcement: announcement("b:1"), ageMs: 0 },
        { announcement: announcement("a:1"), ageMs: 1_500 },
      ],
      "b:1",
      50_000,
      5_000,
    );
    expect(view.map((entry) => [entry.id, entry.self, entry.lastSeenAt])).toEqual([
      ["b:1", true, 50_000],
      ["a:1", false, 48_500],
      ["c:1", false, 49_900],
    ]);
  });

  it("marks entries older than staleAfterMs stale", () => {
    const view = fleetViewOf(
      [
        { announcement: announcement("a:1"), ageMs: 0 },
        { announcement: announcement("b:1"), ageMs: 5_000 },
        { announcement: announcement("c:1"), ageMs: 5_001 },
      ],
      "a:1",
      10_000,
      5_000,
    );
    expect(view.map((entry) => entry.stale)).toEqual([false, false, true]);
  });

  it("flags the views that are not the newest tier-state version's among the fresh entries", () => {
    const view = fleetViewOf(
      [
        { announcement: announcement("a:1", { tier: "mysql", version: 8 }), ageMs: 0 },
        { announcement: announcement("b:1", { tier: "redis", version: 7 }), ageMs: 0 },
        // The newest version, but stale: it does not decide what the fleet follows.
        { announcement: announcement("c:1", { tier: "local", version: 9 }), ageMs: 9_000 },
      ],
      "a:1",
      10_000,
      5_000,
    );
    expect(view.map((entry) => [entry.id, entry.tierMismatch])).toEqual([
      ["a:1", false],
      ["b:1", true],
      ["c:1", true],
    ]);
  });

  it("flags nothing when every instance follows the same version", () => {
    const view = fleetViewOf(
      [
        { announcement: announcement("a:1"), ageMs: 0 },
        { announcement: announcement("b:1"), ageMs: 100 },
      ],
      "a:1",
      10_000,
      5_000,
    );
    expect(view.some((entry) => entry.tierMismatch)).toBe(false);
  });
});

describe("parseAnnouncement", () => {
  it("reads what an instance wrote", () => {
    const own = announcement("a:1");
    expect(parseAnnouncement(JSON.stringify(own))).toEqual(own);
  });

  it("leaves out damage and foreign formats", () => {
    const own = announcement("a:1");
    expect(parseAnnouncement("{")).toBeNull();
    expect(parseAnnouncement("null")).toBeNull();
    expect(parseAnnouncement(JSON.stringify({ ...own, pid: -1 }))).toBeNull();
    expect(parseAnnouncement(JSON.stringify({ ...own, tier: { ...own.tier, tier: "disk" } }))).toBe(
      null,
    );
    expect(parseAnnouncement(JSON.stringify({ ...own, connections: undefined }))).toBeNull();
  });
});
