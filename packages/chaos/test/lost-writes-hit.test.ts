import { describe, expect, it } from "vitest";
import type { FaultWindow } from "../src/checker/fault-windows.js";
import { hitEvidence } from "../src/checker/hit-evidence.js";

/** The failover-lost-writes window: cut at 1 000, promoted at 5 000, next fault at 8 000. */
function windowOf(seen: Record<string, unknown> | null): FaultWindow {
  return {
    name: "failover-lost-writes",
    kind: "failover-lost-writes",
    index: 0,
    start: 1_000,
    heal: 5_000,
    end: 8_000,
    observations: seen ? [{ lostWrites: seen }] : [],
  };
}

// What seed 11's quick run saw: 108 317 bytes the replicas never got, the probe's key
// granted at epoch 4 before the kill and again at epoch 10 on the new master.
const lost = {
  oldMaster: 25264,
  newMaster: 15430,
  waitReplicas: 0,
  offsetAtCut: 89_630,
  offsetAtKill: 197_947,
  probe: "granted on redis",
  probeFence: "17179869186",
  again: "granted again",
  againFence: "42949672961",
};
const withReplicas = {
  ...lost,
  waitReplicas: 1,
  probe: "LockUnavailableError",
  probeFence: null,
};

describe("failover-lost-writes evidence", () => {
  it("without waitReplicas: the probe's lost grant is granted again with a greater fence", () => {
    expect(hitEvidence(windowOf(lost), [], [], 3)).toEqual({
      hit: true,
      evidence:
        "new master 15430; 108317 bytes written past the replicas; waitReplicas 0: probe granted on redis (fence 17179869186), then granted again (fence 42949672961)",
    });
  });

  it("without waitReplicas: a grant the new master had, an equal fence, or no promotion is a miss", () => {
    for (const seen of [
      { ...lost, again: "held", againFence: null },
      { ...lost, againFence: lost.probeFence },
      { ...lost, newMaster: null, again: "no new master", againFence: null },
      { ...lost, offsetAtKill: lost.offsetAtCut },
      { ...lost, probe: "granted on mysql" },
    ]) {
      expect(hitEvidence(windowOf(seen), [], [], 3).hit, JSON.stringify(seen)).toBe(false);
    }
  });

  it("with waitReplicas: nothing to lose (the probe was refused), and Redis grants again after", () => {
    expect(hitEvidence(windowOf(withReplicas), [], [], 3).hit).toBe(true);
    expect(
      hitEvidence(
        windowOf({ ...withReplicas, probe: "granted on redis", probeFence: "17179869186" }),
        [],
        [],
        3,
      ).hit,
    ).toBe(false);
    expect(hitEvidence(windowOf({ ...withReplicas, again: "held" }), [], [], 3).hit).toBe(false);
  });

  it("no observation is a miss", () => {
    expect(hitEvidence(windowOf(null), [], [], 3)).toMatchObject({ hit: false });
  });
});
