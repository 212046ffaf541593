import { describe, expect, it } from "vitest";
import { buildSchedule } from "../src/schedule/build-schedule.js";
import { FAULT_KINDS, QUICK_FAULTS } from "../src/schedule/fault-kinds.js";

describe("nemesis schedule", () => {
  it("is the same for the same seed and mode", () => {
    expect(buildSchedule(42, "full")).toEqual(buildSchedule(42, "full"));
    expect(buildSchedule(7, "quick")).toEqual(buildSchedule(7, "quick"));
  });

  it("differs between seeds", () => {
    const a = buildSchedule(1, "full");
    const b = buildSchedule(2, "full");
    expect(a.steps.map((s) => s.name)).not.toEqual(b.steps.map((s) => s.name));
  });

  it("runs every fault kind in the full run and every numbered item in the quick one", () => {
    const full = new Set(buildSchedule(3, "full").steps.map((s) => s.kind));
    expect([...full].sort()).toEqual([...FAULT_KINDS].sort());
    const quick = buildSchedule(3, "quick").steps.map((s) => s.kind);
    expect([...quick].sort()).toEqual([...QUICK_FAULTS].sort());
    for (const prefix of [
      "pause-",
      "failover",
      "redis-down",
      "warden-db",
      "db-and",
      "clock",
      "redis-key",
      "net-redis",
      "net-db",
      "kill-server",
      "kill-worker",
      "self-pause",
    ]) {
      expect(quick.some((kind) => kind.startsWith(prefix))).toBe(true);
    }
  });

  it("names repeated faults apart and keeps indexes in order", () => {
    const steps = buildSchedule(5, "full").steps;
    expect(new Set(steps.map((s) => s.name)).size).toBe(steps.length);
    expect(steps.map((s) => s.index)).toEqual(steps.map((_, i) => i));
  });

  it("restricts to the faults asked for", () => {
    const only = buildSchedule(9, "quick", ["self-pause-after-read", "self-pause-after-read"]);
    expect(only.steps.map((s) => s.name)).toEqual([
      "self-pause-after-read",
      "self-pause-after-read#2",
    ]);
  });
});
