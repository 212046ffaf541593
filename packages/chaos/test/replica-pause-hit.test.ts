import { describe, expect, it } from "vitest";
import type { FaultWindow } from "../src/checker/fault-windows.js";
import { hitEvidence } from "../src/checker/hit-evidence.js";
import type { ChaosEvent } from "../src/log/events.js";

/** The replica-pause window: frozen at 1 000, thawed at 7 000, next fault at 9 000. */
function windowOf(seen: Record<string, unknown> | null): FaultWindow {
  return {
    name: "replica-pause",
    kind: "replica-pause",
    index: 0,
    start: 1_000,
    heal: 7_000,
    end: 9_000,
    observations: seen ? [{ replicaPause: seen }] : [],
  };
}

const grantOnRedis = (mono: number): ChaosEvent => ({
  src: "worker",
  mono,
  wall: mono,
  worker: "w0",
  inc: 0,
  ev: "granted",
  account: "acct-0",
  lockId: `L${mono}`,
  fence: "8589934593",
  tier: "redis",
});

const withReplicas = { paused: 2, waitReplicas: 1, probe: "LockUnavailableError", undone: 40 };
const withoutReplicas = { paused: 2, waitReplicas: 0, probe: "granted on redis", undone: 0 };

describe("replica-pause evidence", () => {
  it("with waitReplicas: the probe refused, grants undone, no Redis grant while frozen", () => {
    // A grant acknowledged just before the freeze, and grants after the thaw, are fine.
    const events = [grantOnRedis(1_100), grantOnRedis(7_200)];
    const hit = hitEvidence(windowOf(withReplicas), events, [], 3);
    expect(hit).toEqual({
      hit: true,
      evidence:
        "2 replicas frozen; waitReplicas 1: probe LockUnavailableError, 40 grants undone, 0 worker grants on redis while frozen",
    });
  });

  it("with waitReplicas: a worker granted on Redis while no replica could acknowledge is a miss", () => {
    const hit = hitEvidence(windowOf(withReplicas), [grantOnRedis(4_000)], [], 3);
    expect(hit.hit).toBe(false);
    expect(hit.evidence).toContain("1 worker grants on redis while frozen");
  });

  it("with waitReplicas: a probe that was granted, or nothing undone, is a miss", () => {
    for (const seen of [
      { ...withReplicas, probe: "granted on redis" },
      { ...withReplicas, undone: 0 },
      { ...withReplicas, paused: 0 },
    ]) {
      expect(hitEvidence(windowOf(seen), [], [], 3).hit).toBe(false);
    }
  });

  it("without waitReplicas: Redis keeps granting while the replicas are frozen", () => {
    expect(hitEvidence(windowOf(withoutReplicas), [grantOnRedis(4_000)], [], 3).hit).toBe(true);
    expect(hitEvidence(windowOf(withoutReplicas), [], [], 3).hit).toBe(false);
    expect(
      hitEvidence(
        windowOf({ ...withoutReplicas, probe: "LockUnavailableError" }),
        [grantOnRedis(4_000)],
        [],
        3,
      ).hit,
    ).toBe(false);
  });

  it("a fault that never got to its probe is a miss", () => {
    expect(hitEvidence(windowOf(null), [grantOnRedis(4_000)], [], 3)).toEqual({
      hit: false,
      evidence: "no observation: the fault did not get as far as the probe",
    });
  });
});
