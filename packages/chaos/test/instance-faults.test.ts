import { describe, expect, it } from "vitest";
import type { FaultWindow } from "../src/checker/fault-windows.js";
import { hitEvidence } from "../src/checker/hit-evidence.js";
import type { ChaosEvent, WorkerEvent } from "../src/log/events.js";

const stamped = (mono: number) => ({ mono, wall: mono });

/** A server-kill of instance `b` (index 1 of 3) from 1 000 ms, restarted (healed) at 3 000 ms. */
function serverKill(grants: readonly [mono: number, worker: string][]): {
  window: FaultWindow;
  events: ChaosEvent[];
} {
  const window: FaultWindow = {
    name: "server-kill",
    kind: "server-kill",
    index: 0,
    start: 1_000,
    heal: 3_000,
    end: 5_000,
    observations: [{ killedServer: "b", killedServerIndex: 1 }],
  };
  const events: ChaosEvent[] = [
    {
      src: "orchestrator",
      ev: "process-exit",
      role: "server",
      id: "b",
      pid: 1,
      code: null,
      signal: "SIGKILL",
      ...stamped(1_010),
    },
    ...grants.map(
      ([mono, worker]): WorkerEvent => ({
        src: "worker",
        ev: "granted",
        worker,
        inc: 0,
        account: "a",
        fence: "10",
        tier: "redis",
        ...stamped(mono),
      }),
    ),
  ];
  return { window, events };
}

/** A cluster failover from 1 000 ms, healed at 3 000 ms. */
function clusterFailover(fences: readonly [mono: number, fence: bigint][]) {
  const window: FaultWindow = {
    name: "redis-cluster-failover",
    kind: "redis-cluster-failover",
    index: 0,
    start: 1_000,
    heal: 3_000,
    end: 5_000,
    observations: [{ oldMaster: 1, newMaster: 2 }],
  };
  const events: ChaosEvent[] = fences.map(([mono, fence]) => ({
    src: "worker",
    ev: "granted",
    worker: "w0",
    inc: 0,
    account: "a",
    fence: String(fence),
    tier: "redis",
    ...stamped(mono),
  }));
  return { window, events };
}

describe("evidence of the instance and cluster faults", () => {
  it("server-kill hit: the instance died and the others' workers were granted meanwhile", () => {
    // w1 and w4 talk to b (i mod 3 = 1); w0 and w2 to a and c.
    const { window, events } = serverKill([
      [1_500, "w0"],
      [2_000, "w2"],
    ]);
    const hit = hitEvidence(window, events, [], 3);
    expect(hit.hit).toBe(true);
    expect(hit.evidence).toContain("2 grants through the other instances");
  });

  it("server-kill missed: only the killed instance's workers were granted while it was down", () => {
    const { window, events } = serverKill([
      [500, "w0"],
      [1_500, "w1"],
      [2_500, "w4"],
      [3_500, "w2"],
    ]);
    expect(hitEvidence(window, events, [], 3).hit).toBe(false);
  });

  it("redis-cluster-failover hit only when the epoch grew after the promotion", () => {
    const epoch = (e: bigint, n: bigint) => e * 2n ** 33n + n;
    const grew = clusterFailover([
      [500, epoch(3n, 10n)],
      [3_500, epoch(4n, 1n)],
    ]);
    expect(hitEvidence(grew.window, grew.events, [], 3).hit).toBe(true);
    const same = clusterFailover([
      [500, epoch(3n, 10n)],
      [3_500, epoch(3n, 11n)],
    ]);
    expect(hitEvidence(same.window, same.events, [], 3).hit).toBe(false);
  });
});
