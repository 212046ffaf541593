import { describe, expect, it } from "vitest";
import { auditHoldDurations, holdDurations } from "./hold-durations";

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

describe("auditHoldDurations", () => {
  const event = (type: string, lockId: string, at: number, reason: string | null = null) => ({
    type,
    at,
    lockId,
    fence: "1",
    clientId: "c",
    ownerId: "o",
    leaseMs: null,
    reason,
  });

  it("counts permit and read-write holds, and a release that leaves re-entries ends nothing", () => {
    expect(
      auditHoldDurations([
        event("permit-grant", "p", 100),
        event("permit-release", "p", 160),
        event("rwlock-grant", "w", 200, "write"),
        event("rwlock-release", "w", 250, "write: one entry released, 1 left"),
        event("rwlock-release", "w", 900, "write"),
        event("rwlock-grant", "r", 300, "read"),
        event("rwlock-expired", "r", 1_300, "read: the lease ended without a release"),
        event("permit-grant", "q", 400),
        event("permit-force-release", "q", 450),
      ]).sort((a, b) => a - b),
    ).toEqual([50, 60, 700, 1_000]);
  });
});
