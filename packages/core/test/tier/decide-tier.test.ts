import { describe, expect, test } from "vitest";
import { decideTier, type TierInputs } from "../../src/tier/decide-tier.js";
import { HealthTracker } from "../../src/tier/health-tracker.js";

const healthy: TierInputs = {
  current: "redis",
  forced: false,
  redisHealthy: true,
  redisRecovered: true,
  mysqlUp: true,
  mayRecover: true,
};

describe("decideTier", () => {
  test("stays on a healthy Redis", () => {
    expect(decideTier(healthy)).toBeNull();
  });
  test("degrades to MySQL when Redis fails, to local when both do", () => {
    expect(decideTier({ ...healthy, redisHealthy: false })?.tier).toBe("mysql");
    expect(decideTier({ ...healthy, redisHealthy: false, mysqlUp: false })?.tier).toBe("local");
  });
  test("recovers to Redis only when recovered and allowed to lead", () => {
    const degraded = { ...healthy, current: "mysql" as const };
    expect(decideTier({ ...degraded, redisRecovered: false })).toBeNull();
    expect(decideTier({ ...degraded, mayRecover: false })).toBeNull();
    expect(decideTier(degraded)?.tier).toBe("redis");
  });
  test("leaves MySQL for local when MySQL goes too, and needs MySQL to leave local", () => {
    expect(decideTier({ ...healthy, current: "mysql", mysqlUp: false })?.tier).toBe("local");
    expect(decideTier({ ...healthy, current: "local", mysqlUp: false })).toBeNull();
    expect(decideTier({ ...healthy, current: "local" })?.tier).toBe("redis");
    expect(decideTier({ ...healthy, current: "local", redisRecovered: false })?.tier).toBe("mysql");
  });
  test("a forced tier never changes by itself", () => {
    expect(
      decideTier({ ...healthy, forced: true, redisHealthy: false, mysqlUp: false }),
    ).toBeNull();
  });
});

describe("HealthTracker", () => {
  const options = { failuresToDegrade: 3, successesToRecover: 3, holdDownMs: 5_000 };
  test("degrades after N failures in a row, not after scattered ones", () => {
    const tracker = new HealthTracker(options);
    for (const ok of [false, false, true, false, false]) tracker.record(ok, 0);
    expect(tracker.healthy).toBe(true);
    tracker.record(false, 0);
    expect(tracker.healthy).toBe(false);
  });
  test("recovers only after M successes spanning the hold-down", () => {
    const tracker = new HealthTracker(options);
    for (let i = 0; i < 3; i += 1) tracker.record(false, i * 1_000);
    for (let i = 3; i < 7; i += 1) tracker.record(true, i * 1_000);
    expect(tracker.recovered(6_000)).toBe(false);
    tracker.record(true, 8_000);
    expect(tracker.recovered(8_000)).toBe(true);
    tracker.record(false, 9_000);
    expect(tracker.recovered(9_000)).toBe(false);
  });
});
