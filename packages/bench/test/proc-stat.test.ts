import { describe, expect, it } from "vitest";
import { cpuDelta, cpuSnapshot, parseProcStat, parseVmRssKb } from "../src/stats/proc-stat.js";

describe("parseProcStat", () => {
  it("reads utime and stime, counting fields after the command name", () => {
    const line =
      "4242 (node (bench) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 517 83 0 0 20 0 11 0 9000 1000 200";
    expect(parseProcStat(line)).toEqual({ userTicks: 517, systemTicks: 83 });
  });

  it("refuses text that is not a stat line", () => {
    expect(() => parseProcStat("no parentheses here")).toThrow();
  });
});

describe("parseVmRssKb", () => {
  it("finds VmRSS in /proc/<pid>/status", () => {
    expect(parseVmRssKb("Name:\tnode\nVmPeak:\t 9 kB\nVmRSS:\t  204800 kB\nThreads:\t11\n")).toBe(
      204_800,
    );
    expect(parseVmRssKb("Name:\tzombie\n")).toBeNull();
  });
});

describe("cpuDelta", () => {
  it("subtracts per process and drops processes missing from either snapshot", () => {
    expect(cpuDelta({ server: 100, redis: 50 }, { server: 350, loadgen: 10 })).toEqual({
      server: 250,
    });
  });
});

describe("cpuSnapshot", () => {
  const cpu = new Map([
    [10, 100],
    [11, 250],
    [12, 50],
  ]);
  const read = (pid: number) => cpu.get(pid) ?? null;

  it("sums a role's processes (a fleet of servers) and reads a single pid as before", () => {
    expect(cpuSnapshot({ server: [10, 11, 12], loadgen: 11 }, read)).toEqual({
      server: 400,
      loadgen: 250,
    });
  });

  it("counts a fleet's other instances apart as well as in the fleet's sum", () => {
    expect(cpuSnapshot({ server: [10, 11, 12], serverPeers: [11, 12] }, read)).toEqual({
      server: 400,
      serverPeers: 300,
    });
  });

  it("leaves a role out when one of its processes is gone, or it has none", () => {
    expect(cpuSnapshot({ server: [10, 99], redis: [], loadgen: 12 }, read)).toEqual({
      loadgen: 50,
    });
  });
});
