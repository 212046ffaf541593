import { describe, expect, it } from "vitest";
import {
  leaderOf,
  lockDelayRows,
  permitKeyRows,
  rwKeyRows,
  type PermitState,
  type RwGrantState,
} from "./key-state";

const received = 1_000_000;

function permit(lockId: string, permits: number, grantedAt: number, ttlMs: number): PermitState {
  return {
    lockId,
    fence: lockId.replace(/\D/g, ""),
    holder: { clientId: `client-${lockId}`, ownerId: "worker" },
    permits,
    grantedAt,
    // The store's clock runs 5 s ahead of the browser's here.
    expiresAt: received + 5_000 + ttlMs,
    ttlMs,
    tier: "redis",
  };
}

describe("permitKeyRows", () => {
  it("lists keys with permits in use, fullest first, holders oldest first, countdowns from ttl", () => {
    const rows = permitKeyRows(
      [
        { businessKey: "idle", inUse: 0, holders: [] },
        { businessKey: "b", inUse: 1, holders: [permit("p3", 1, received + 5_000 - 2_000, 9_000)] },
        {
          businessKey: "a",
          inUse: 3,
          holders: [
            permit("p2", 1, received + 5_000 - 1_000, 4_000),
            permit("p1", 2, received + 5_000 - 3_000, 8_000),
          ],
        },
      ],
      4,
      received,
      received + 1_000,
    );
    expect(rows.map((r) => [r.businessKey, r.inUse, r.total, r.fullPct])).toEqual([
      ["a", 3, 4, 75],
      ["b", 1, 4, 25],
    ]);
    expect(rows[0]?.holders.map((h) => [h.lockId, h.permits, h.age, h.countdown.text])).toEqual([
      ["p1", 2, "4.0 s", "0:07"],
      ["p2", 1, "2.0 s", "0:03"],
    ]);
  });
});

describe("lockDelayRows", () => {
  it("lists keys held back by a lock-delay, soonest free first, and drops delays that ran out", () => {
    const rows = lockDelayRows(
      [
        { businessKey: "held", lease: null, lockDelay: null },
        { businessKey: "late", lease: null, lockDelay: { until: 99, remainingMs: 9_000 } },
        { businessKey: "soon", lease: null, lockDelay: { until: 98, remainingMs: 2_000 } },
        { businessKey: "over", lease: null, lockDelay: { until: 97, remainingMs: 500 } },
      ],
      received,
      received + 1_000,
    );
    expect(rows.map((r) => [r.businessKey, r.untilMs, r.countdown.text])).toEqual([
      ["soon", 98, "0:01"],
      ["late", 99, "0:08"],
    ]);
  });
});

describe("leaderOf", () => {
  it("is the key's live lease: holder, term = fence, held for (store clock), countdown from ttl", () => {
    const leader = leaderOf(
      {
        businessKey: "k",
        lockDelay: null,
        lease: {
          lockId: "L1",
          fence: "42",
          holder: { clientId: "node-a", ownerId: "scheduler" },
          grantedAt: received + 5_000 - 60_000,
          expiresAt: received + 5_000 + 6_000,
          ttlMs: 6_000,
          renewals: 20,
          tier: "redis",
        },
      },
      received,
      received + 2_000,
    );
    expect(leader).toMatchObject({
      term: "42",
      clientId: "node-a",
      heldFor: "1 m 02 s",
      renewals: 20,
      countdown: { text: "0:04" },
    });
    expect(leaderOf({ businessKey: "k", lease: null, lockDelay: null }, received, received)).toBe(
      null,
    );
    expect(leaderOf(undefined, received, received)).toBeNull();
  });
});

function rwGrant(
  lockId: string,
  mode: "read" | "write",
  grantedAt: number,
  ttlMs: number,
): RwGrantState {
  return {
    lockId,
    mode,
    fence: mode === "read" ? "900" : lockId.replace(/\D/g, ""),
    holder: { clientId: `client-${lockId}`, ownerId: `${mode}-job` },
    grantedAt,
    renewals: 3,
    // The store's clock runs 5 s ahead of the browser's here.
    expiresAt: received + 5_000 + ttlMs,
    ttlMs,
    tier: "redis",
  };
}

describe("rwKeyRows", () => {
  it("lists held or awaited keys: waiting writers first, then most readers; idle keys left out", () => {
    const rows = rwKeyRows(
      [
        { businessKey: "idle", writer: null, readers: [], readFence: "7", waitingWriters: 0 },
        {
          businessKey: "written",
          writer: rwGrant("w41", "write", received + 5_000 - 2_000, 9_000),
          readers: [],
          readFence: null,
          waitingWriters: 0,
        },
        {
          businessKey: "read",
          writer: null,
          readers: [
            rwGrant("r2", "read", received + 5_000 - 1_000, 4_000),
            rwGrant("r1", "read", received + 5_000 - 3_000, 8_000),
          ],
          readFence: "900",
          waitingWriters: 0,
        },
        {
          businessKey: "contended",
          writer: null,
          readers: [rwGrant("r3", "read", received + 5_000 - 500, 9_500)],
          readFence: "900",
          waitingWriters: 2,
        },
        { businessKey: "awaited", writer: null, readers: [], readFence: null, waitingWriters: 1 },
      ],
      received,
      received + 1_000,
    );
    expect(
      rows.map((r) => [r.businessKey, r.state, r.readers.length, r.readFence, r.waitingWriters]),
    ).toEqual([
      ["contended", "read", 1, "900", 2],
      ["awaited", "free", 0, null, 1],
      ["read", "read", 2, "900", 0],
      ["written", "write", 0, null, 0],
    ]);
    // Readers oldest first; ages on the store's clock, countdowns from the ttl.
    expect(
      rows[2]?.readers.map((g) => [g.lockId, g.mode, g.fence, g.age, g.countdown.text, g.renewals]),
    ).toEqual([
      ["r1", "read", "900", "4.0 s", "0:07", 3],
      ["r2", "read", "900", "2.0 s", "0:03", 3],
    ]);
    expect(rows[3]?.writer).toMatchObject({
      lockId: "w41",
      mode: "write",
      fence: "41",
      clientId: "client-w41",
      ownerId: "write-job",
      age: "3.0 s",
      countdown: { text: "0:08", state: "ok" },
    });
  });
});
