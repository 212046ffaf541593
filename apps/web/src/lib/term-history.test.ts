import { describe, expect, it } from "vitest";
import { formatWhen, termHistory, type TermEvent } from "./term-history";

const base = Date.UTC(2026, 11, 1, 8, 0, 0);

function event(partial: Partial<TermEvent> & Pick<TermEvent, "type" | "atMs">): TermEvent {
  return {
    lockId: null,
    fence: null,
    clientId: null,
    ownerId: null,
    actor: null,
    reason: null,
    grantedAt: null,
    ...partial,
  };
}

const hold = (lockId: string, fence: string, clientId: string) => ({
  lockId,
  fence,
  clientId,
  ownerId: "leader",
});

describe("termHistory", () => {
  it("makes one term per grant, newest first, with how each ended and the leaderless gap before it", () => {
    const events = [
      // Newest first, as event.search answers; the function must not depend on the order.
      event({ type: "grant", atMs: base + 9_000, ...hold("L3", "12", "c") }),
      event({
        type: "force-release",
        atMs: base + 6_000,
        ...hold("L2", "11", "b"),
        actor: "operator:alice",
        reason: "stuck",
        grantedAt: base + 3_500,
      }),
      event({ type: "extend", atMs: base + 5_000, ...hold("L2", "11", "b") }),
      event({ type: "grant", atMs: base + 3_500, ...hold("L2", "11", "b") }),
      event({ type: "release", atMs: base + 3_000, ...hold("L1", "10", "a") }),
      event({
        type: "revoke-requested",
        atMs: base + 2_000,
        ...hold("L1", "10", "a"),
        actor: "operator:bob",
      }),
      event({ type: "grant", atMs: base + 1_000, ...hold("L1", "10", "a") }),
      event({ type: "refusal", atMs: base + 1_500, fence: null }),
    ];
    const terms = termHistory(events, "L3");
    expect(terms.map((t) => [t.term, t.clientId, t.end, t.fromMs, t.toMs, t.gapBeforeMs])).toEqual([
      ["12", "c", "leading", base + 9_000, null, 3_000],
      ["11", "b", "force-released", base + 3_500, base + 6_000, 500],
      ["10", "a", "released", base + 1_000, base + 3_000, null],
    ]);
    expect(terms[1]).toMatchObject({ endActor: "operator:alice", endReason: "stuck" });
    expect(terms[2]?.releaseRequests).toEqual([{ atMs: base + 2_000, actor: "operator:bob" }]);
  });

  it("an expired term ended with its lease; a grant older than the events takes the hold row's grant time", () => {
    const terms = termHistory(
      [
        event({
          type: "expired",
          atMs: base + 20_000,
          ...hold("L7", "7", "gone"),
          reason: "lapsed: no release before the lease ran out",
          grantedAt: base,
        }),
        event({ type: "extend", atMs: base + 30_000, ...hold("L8", "8", "next"), grantedAt: null }),
      ],
      null,
    );
    expect(terms.map((t) => [t.term, t.end, t.fromMs, t.toMs])).toEqual([
      ["8", "unknown", null, null],
      ["7", "expired", base, base + 20_000],
    ]);
    expect(terms[1]?.endReason).toMatch(/lapsed/);
  });

  it("orders terms by fence (a decimal string past 2^53), not by text", () => {
    const big = "9007199254740993";
    const terms = termHistory(
      [
        event({ type: "grant", atMs: base + 1, ...hold("A", "99", "a") }),
        event({ type: "grant", atMs: base, ...hold("B", big, "b") }),
      ],
      null,
    );
    expect(terms.map((t) => t.term)).toEqual([big, "99"]);
  });

  it("the live lease's term is leading only if it has not ended in the events", () => {
    const terms = termHistory(
      [
        event({ type: "grant", atMs: base, ...hold("A", "1", "a") }),
        event({ type: "release", atMs: base + 5, ...hold("A", "1", "a") }),
      ],
      "A",
    );
    expect(terms[0]?.end).toBe("released");
    expect(termHistory([], null)).toEqual([]);
  });
});

describe("formatWhen", () => {
  it("shows the time of day for today and the date before today", () => {
    const now = new Date(2026, 11, 1, 12, 0, 0).getTime();
    expect(formatWhen(new Date(2026, 11, 1, 9, 5, 7, 25).getTime(), now)).toBe("09:05:07");
    expect(formatWhen(new Date(2026, 10, 30, 23, 59, 1).getTime(), now)).toBe(
      "2026-11-30 23:59:01",
    );
  });
});
