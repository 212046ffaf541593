import { readFileSync } from "node:fs";

/**
 * Start time of a process in clock ticks since boot (field 22 of `/proc/<pid>/stat`),
 * or `undefined` when the process is gone, a zombie, or `/proc` is unavailable. A pid
 * plus its start time names one process even after the kernel reuses the pid.
 */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses; fields after the
    // last ")" are plain numbers, starting with field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that had `pid` and `startTicks` still runs. Without a recorded
 * start time (no `/proc`) a living pid is trusted, which errs on the side of not killing.
 */
export function isSameProcessAlive(pid: number, startTicks: string | undefined): boolean {
  if (startTicks !== undefined) return processStartTicks(pid) === startTicks;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
