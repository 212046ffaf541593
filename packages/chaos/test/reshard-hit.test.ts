import { describe, expect, it } from "vitest";
import type { FaultWindow } from "../src/checker/fault-windows.js";
import { hitEvidence } from "../src/checker/hit-evidence.js";
import type { ChaosEvent } from "../src/log/events.js";

/** The reshard window: the move starts at 1 000, ends at 2 000, next fault at 6 000. */
function windowOf(seen: Record<string, unknown> | null): FaultWindow {
  return {
    name: "redis-cluster-reshard",
    kind: "redis-cluster-reshard",
    index: 0,
    start: 1_000,
    heal: 2_000,
    end: 6_000,
    observations: seen ? [{ reshard: seen }] : [],
  };
}

const EPOCH = 8_589_934_592n;

const grant = (mono: number, account: string, epoch: number): ChaosEvent => ({
  src: "worker",
  mono,
  wall: mono,
  worker: "w0",
  inc: 0,
  ev: "granted",
  account,
  lockId: `L${mono}`,
  fence: String(BigInt(epoch) * EPOCH + 7n),
  tier: "redis",
});

const moved = { moved: true, slot: 10904, account: "acct-3", keys: 4 };

describe("redis-cluster-reshard evidence", () => {
  it("the moved account's grants after the move are in a higher epoch than all before", () => {
    const events = [grant(500, "acct-3", 6), grant(2_500, "acct-3", 9), grant(3_000, "acct-3", 9)];
    expect(hitEvidence(windowOf(moved), events, [], 3)).toEqual({
      hit: true,
      evidence:
        "slot 10904 (acct-3, 4 keys) moved; the account's epoch before 6, after the move 9 (2 grants)",
    });
  });

  it("a grant after the move in the old epoch is a miss", () => {
    const events = [grant(500, "acct-3", 6), grant(2_500, "acct-3", 6), grant(3_000, "acct-3", 9)];
    expect(hitEvidence(windowOf(moved), events, [], 3).hit).toBe(false);
  });

  it("no grant of the moved account after the move is a miss; other accounts do not count", () => {
    const events = [grant(500, "acct-3", 6), grant(2_500, "acct-1", 9)];
    expect(hitEvidence(windowOf(moved), events, [], 3)).toEqual({
      hit: false,
      evidence:
        "slot 10904 (acct-3, 4 keys) moved; the account's epoch before 6, after the move none (0 grants)",
    });
  });

  it("a fault that found no held key to move is a miss", () => {
    expect(hitEvidence(windowOf({ moved: false }), [], [], 3)).toEqual({
      hit: false,
      evidence: "no held ledger key found to move",
    });
    expect(hitEvidence(windowOf(null), [], [], 3).hit).toBe(false);
  });
});
