import { describe, expect, it } from "vitest";
import { buildSchedule } from "../src/schedule/build-schedule.js";
import {
  CLUSTER_QUICK_FAULTS,
  FAULT_KINDS,
  QUICK_FAULTS,
  runsOn,
} from "../src/schedule/fault-kinds.js";

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
    expect([...full].sort()).toEqual(FAULT_KINDS.filter((k) => runsOn(k, "sentinel")).sort());
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
      "server-kill",
      "kill-worker",
      "self-pause",
    ]) {
      expect(quick.some((kind) => kind.startsWith(prefix))).toBe(true);
    }
  });

  it("runs every fault that runs on a cluster in the cluster variant, and no sentinel-only one", () => {
    const full = buildSchedule(3, "full", undefined, "cluster");
    expect(full.redis).toBe("cluster");
    const kinds = new Set(full.steps.map((s) => s.kind));
    expect([...kinds].sort()).toEqual(FAULT_KINDS.filter((k) => runsOn(k, "cluster")).sort());
    expect(kinds.has("redis-cluster-failover")).toBe(true);
    expect(kinds.has("server-kill")).toBe(true);
    expect(kinds.has("failover-lost-writes")).toBe(true);
    for (const sentinelOnly of ["failover-kill-master", "redis-down", "db-and-redis-down"]) {
      expect(kinds.has(sentinelOnly as never)).toBe(false);
    }
    const quick = buildSchedule(3, "quick", undefined, "cluster").steps.map((s) => s.kind);
    expect([...quick].sort()).toEqual([...CLUSTER_QUICK_FAULTS].sort());
    expect(buildSchedule(3, "quick").steps.some((s) => s.kind === "redis-cluster-failover")).toBe(
      false,
    );
  });

  it("kills any of the three server instances", () => {
    const servers = new Set<number>();
    for (let seed = 0; seed < 40; seed += 1) {
      for (const step of buildSchedule(seed, "full").steps) {
        if (step.kind === "server-kill") servers.add(step.params.server!);
      }
    }
    expect([...servers].sort()).toEqual([0, 1, 2]);
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
