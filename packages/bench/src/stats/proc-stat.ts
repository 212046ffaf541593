import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { CpuByRole, ProcessRole } from "./process-role.js";

/** User and system CPU of a process (all its threads), in clock ticks. */
export interface CpuTicks {
  readonly userTicks: number;
  readonly systemTicks: number;
}

/**
 * Reads utime and stime (fields 14 and 15) from a `/proc/<pid>/stat` line. The command
 * name in field 2 may hold spaces and parentheses, so fields are counted from the last `)`.
 */
export function parseProcStat(line: string): CpuTicks {
  const close = line.lastIndexOf(")");
  if (close < 0) throw new Error("not a /proc/<pid>/stat line");
  // After ")": field 3 (state) is index 0, so field n is index n - 3.
  const fields = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const userTicks = Number(fields[14 - 3]);
  const systemTicks = Number(fields[15 - 3]);
  if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) {
    throw new Error("/proc/<pid>/stat line without utime/stime");
  }
  return { userTicks, systemTicks };
}

/** Resident set size from a `/proc/<pid>/status` text, in KiB; null when absent. */
export function parseVmRssKb(status: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) : null;
}

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK`, 100 on every Linux build we know, asked once. */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    } catch {
      ticksPerSecond = 100;
    }
    if (!Number.isFinite(ticksPerSecond) || ticksPerSecond <= 0) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** CPU time a process has used so far (user + system, all threads), in ms; null when it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const ticks = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return ((ticks.userTicks + ticks.systemTicks) * 1000) / clockTicksPerSecond();
  } catch {
    return null;
  }
}

/** Resident set size of a process, in MiB; null when it is gone. */
export function processRssMb(pid: number): number | null {
  try {
    const kb = parseVmRssKb(readFileSync(`/proc/${pid}/status`, "utf8"));
    return kb === null ? null : kb / 1024;
  } catch {
    return null;
  }
}

/** The pid of each process role; a role may be several processes (a fleet of servers). */
export type PidsByRole = Partial<Record<ProcessRole, number | readonly number[]>>;

/**
 * CPU used so far by each known role, in ms: the sum over the role's processes (every
 * server instance of a fleet). A role is left out when any of its processes is gone, so a
 * delta never mixes a fleet with part of it.
 */
export function cpuSnapshot(
  pids: PidsByRole,
  readCpuMs: (pid: number) => number | null = processCpuMs,
): CpuByRole {
  const snapshot: CpuByRole = {};
  for (const [role, value] of Object.entries(pids) as [ProcessRole, number | number[]][]) {
    const list = typeof value === "number" ? [value] : value;
    let total = 0;
    let complete = list.length > 0;
    for (const pid of list) {
      const ms = readCpuMs(pid);
      if (ms === null) complete = false;
      else total += ms;
    }
    if (complete) snapshot[role] = total;
  }
  return snapshot;
}

/** CPU used between two snapshots, per process present in both, in ms. */
export function cpuDelta(before: CpuByRole, after: CpuByRole): CpuByRole {
  const delta: CpuByRole = {};
  for (const [role, end] of Object.entries(after) as [ProcessRole, number][]) {
    const start = before[role];
    if (start !== undefined) delta[role] = Math.max(0, end - start);
  }
  return delta;
}
