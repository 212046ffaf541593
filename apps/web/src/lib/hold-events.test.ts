import { describe, expect, it } from "vitest";
import { holdEventsOf, liveHoldEvents, modeOfKind, type AuditHoldEvent } from "./hold-events";
import { buildKeyTimeline } from "./key-timeline";

function audit(
  type: string,
  at: number,
  lockId: string | null,
  patch: Partial<AuditHoldEvent> = {},
): AuditHoldEvent {
  return {
    type,
    at,
    lockId,
    fence: lockId === null ? null : `1${lockId.length}`,
    clientId: "svc-a",
    ownerId: `job-${lockId ?? "none"}`,
    leaseMs: null,
    reason: null,
    ...patch,
  };
}

const row = (i: { lockId: string; startMs: number; endMs: number; end: string }) => [
  i.lockId,
  i.startMs,
  i.endMs,
  i.end,
];

describe("the key timeline of a semaphore key", () => {
  // What event.search answers for a semaphore key: permit rows, never a lock's grant.
  const events = [
    audit("permit-grant", 1_000, "P1", { leaseMs: 10_000, reason: "permits 2, 2/3 in use" }),
    audit("permit-grant", 2_000, "P2", { leaseMs: 10_000, reason: "permits 1, 3/3 in use" }),
    audit("permit-release", 4_000, "P1", { reason: "permits 2" }),
    audit("permit-grant", 5_000, "P3", { leaseMs: 1_000 }),
    audit("permit-expired", 6_000, "P3", { reason: "lapsed: permits 1" }),
  ];

  it("draws every permit grant, ended by its release or expiry, and flags no overlap", () => {
    const timeline = buildKeyTimeline(holdEventsOf(events), new Set(["P2"]), 0, 8_000, "all");
    expect(timeline.intervals.map(row)).toEqual([
      ["P1", 1_000, 4_000, "released"],
      ["P2", 2_000, 8_000, "live"],
      ["P3", 5_000, 6_000, "expired"],
    ]);
    expect(timeline.overlaps).toEqual([]);
    expect(timeline.lanes).toBe(2);
  });

  it("draws permits held now whose grant the audit cannot answer yet", () => {
    // The live feed announces a grant before the audit writer's batch reaches MySQL: from the
    // events alone the key had "0 permit grants" while its permits were in use.
    expect(
      buildKeyTimeline(holdEventsOf([]), new Set(["P7"]), 5_000, 9_000, "all").intervals,
    ).toEqual([]);
    const live = liveHoldEvents(
      [
        { lockId: "P7", fence: "71", clientId: "svc-b", ownerId: "sync-1", grantedAt: 7_000 },
        { lockId: "P8", fence: "72", clientId: "svc-b", ownerId: "sync-2", grantedAt: null },
      ],
      5_000,
    );
    const timeline = buildKeyTimeline(live, new Set(["P7", "P8"]), 5_000, 9_000, "all");
    expect(timeline.intervals.map(row)).toEqual([
      ["P8", 5_000, 9_000, "live"],
      ["P7", 7_000, 9_000, "live"],
    ]);
    expect(timeline.intervals.map((i) => [i.clientId, i.ownerId, i.fence])).toEqual([
      ["svc-b", "sync-2", "72"],
      ["svc-b", "sync-1", "71"],
    ]);
  });

  it("draws a live grant once when the audit has it too", () => {
    const timeline = buildKeyTimeline(
      [
        ...holdEventsOf([audit("permit-grant", 2_010, "P2", { leaseMs: 10_000 })]),
        ...liveHoldEvents(
          [{ lockId: "P2", fence: "12", clientId: "svc-a", ownerId: "job-P2", grantedAt: 2_000 }],
          0,
        ),
      ],
      new Set(["P2"]),
      0,
      8_000,
      "all",
    );
    expect(timeline.intervals.map(row)).toEqual([["P2", 2_000, 8_000, "live"]]);
  });
});

describe("the key timeline of a mutex key", () => {
  it("starts a live lease whose grant time the store does not know at its audited grant", () => {
    const timeline = buildKeyTimeline(
      [
        ...holdEventsOf([audit("grant", 3_000, "L1", { leaseMs: 10_000 })]),
        ...liveHoldEvents(
          [{ lockId: "L1", fence: "12", clientId: "svc-a", ownerId: "job-L1", grantedAt: null }],
          1_000,
        ),
      ],
      new Set(["L1"]),
      1_000,
      5_000,
    );
    expect(timeline.intervals.map((i) => [...row(i), i.clippedStart])).toEqual([
      ["L1", 3_000, 5_000, "live", false],
    ]);
  });
});

describe("the key timeline of a read-write key", () => {
  it("lets readers share the key, keeps each grant's mode, and flags a writer beside a reader", () => {
    const events = holdEventsOf([
      audit("rwlock-grant", 1_000, "R1", { reason: "read", leaseMs: 10_000 }),
      audit("rwlock-grant", 1_500, "R2", { reason: "read", leaseMs: 10_000 }),
      audit("rwlock-release", 3_000, "R1", { reason: "read" }),
      audit("rwlock-release", 3_500, "R2", { reason: "read" }),
      audit("rwlock-grant", 4_000, "W1", { reason: "write", leaseMs: 10_000 }),
      audit("rwlock-release", 5_000, "W1", { reason: "write" }),
      // A reader granted while a writer held the key: a broken exclusion (or the local tier).
      audit("rwlock-grant", 6_000, "W2", { reason: "write", leaseMs: 10_000 }),
      audit("rwlock-grant", 6_500, "R3", { reason: "read", leaseMs: 10_000 }),
      audit("rwlock-expired", 7_000, "R3", { reason: "read: the lease ended without a release" }),
      audit("rwlock-release", 7_500, "W2", { reason: "write" }),
    ]);
    const timeline = buildKeyTimeline(events, new Set(), 0, 10_000, "readers");
    expect(timeline.intervals.map((i) => [i.lockId, i.mode, i.startMs, i.endMs, i.end])).toEqual([
      ["R1", "read", 1_000, 3_000, "released"],
      ["R2", "read", 1_500, 3_500, "released"],
      ["W1", "write", 4_000, 5_000, "released"],
      ["W2", "write", 6_000, 7_500, "released"],
      ["R3", "read", 6_500, 7_000, "expired"],
    ]);
    expect(timeline.overlaps).toEqual([{ lockIds: ["W2", "R3"], fromMs: 6_500, toMs: 7_000 }]);
    // The same holds of a mutex would all be flagged.
    expect(buildKeyTimeline(events, new Set(), 0, 10_000).overlaps).toHaveLength(2);
  });

  it("keeps a re-entered grant held until its last entry is released", () => {
    const events = holdEventsOf([
      audit("rwlock-grant", 1_000, "R1", { reason: "read", leaseMs: 60_000 }),
      audit("rwlock-grant", 1_200, "R1", { reason: "read (re-entry)", leaseMs: 60_000 }),
      audit("rwlock-release", 2_000, "R1", { reason: "read: one entry released, 1 left" }),
      audit("rwlock-release", 4_000, "R1", { reason: "read" }),
    ]);
    expect(buildKeyTimeline(events, new Set(), 0, 5_000, "readers").intervals.map(row)).toEqual([
      ["R1", 1_000, 4_000, "released"],
    ]);
  });

  it("ends a grant an operator force-released, whatever the audit calls it", () => {
    const events = holdEventsOf([
      audit("rwlock-grant", 1_000, "W1", { reason: "write", leaseMs: 60_000 }),
      audit("rwlock-force-release", 2_000, "W1", { reason: "stuck, INC-1" }),
      audit("rwlock-grant", 3_000, "W2", { reason: "write", leaseMs: 60_000 }),
      audit("force-release", 4_000, "W2", { reason: "stuck, INC-2" }),
      audit("permit-grant", 5_000, "P1", { leaseMs: 60_000 }),
      audit("permit-force-release", 6_000, "P1", { reason: "stuck, INC-3" }),
    ]);
    expect(
      buildKeyTimeline(events, new Set(), 0, 8_000, "readers").intervals.map((i) => i.end),
    ).toEqual(["force-released", "force-released", "force-released"]);
  });
});

describe("holdEventsOf", () => {
  it("leaves out what is not a step of a hold, and events without a lockId", () => {
    expect(
      holdEventsOf([
        audit("refusal", 1, "L1"),
        audit("revoke-requested", 2, "L1"),
        audit("policy", 3, null),
        audit("grant", 4, null),
        audit("stale-fence", 5, "L1"),
      ]),
    ).toEqual([]);
  });

  it("keeps a lock's own steps as they are, without a mode", () => {
    expect(
      holdEventsOf([
        audit("grant", 1, "L1", { leaseMs: 5_000 }),
        audit("extend", 2, "L1", { leaseMs: 5_000 }),
        audit("expired", 3, "L1"),
      ]).map((e) => [e.type, e.atMs, e.leaseMs, e.mode]),
    ).toEqual([
      ["grant", 1, 5_000, null],
      ["extend", 2, 5_000, null],
      ["expired", 3, null, null],
    ]);
  });

  it("reads a read-write grant's mode from the reason only for read-write rows", () => {
    expect(
      holdEventsOf([
        audit("rwlock-grant", 1, "R1", { reason: "read (re-entry)" }),
        audit("rwlock-grant", 2, "W1", { reason: "write" }),
        audit("rwlock-release", 3, "X1", { reason: null }),
        audit("grant", 4, "L1", { reason: "read" }),
      ]).map((e) => e.mode),
    ).toEqual(["read", "write", null, null]);
  });
});

describe("modeOfKind", () => {
  it("is the mode of a read or write row and null for a lock or a permit", () => {
    expect(["read", "write", "lock", "permit"].map(modeOfKind)).toEqual([
      "read",
      "write",
      null,
      null,
    ]);
  });
});
