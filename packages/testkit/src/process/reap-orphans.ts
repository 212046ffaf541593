import { rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { isSameProcessAlive } from "./process-identity.js";
import { readPidRecords, removePidRecord, type PidRecord } from "./pid-records.js";

/** How long to wait for a SIGKILLed orphan to disappear before moving on. */
const ORPHAN_EXIT_WAIT_MS = 2_000;

async function killOrphan(record: PidRecord): Promise<boolean> {
  // The start time check keeps us from killing an unrelated process that reuses the pid.
  if (!isSameProcessAlive(record.pid, record.startTicks)) return false;
  try {
    process.kill(record.pid, "SIGKILL");
  } catch (error) {
    // Another reaper (a parallel test run) got there first.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  const deadline = performance.now() + ORPHAN_EXIT_WAIT_MS;
  while (isSameProcessAlive(record.pid, record.startTicks) && performance.now() < deadline) {
    await sleep(20);
  }
  return true;
}

/**
 * Kills servers whose starting process died without cleaning up (a test worker killed
 * with SIGKILL, a crashed benchmark) and removes their directories. Processes whose
 * owner still runs, such as a parallel test run, are left alone.
 *
 * @returns the pids that were killed
 */
export async function reapOrphans(): Promise<number[]> {
  const killed: number[] = [];
  for (const record of readPidRecords()) {
    if (isSameProcessAlive(record.ownerPid, record.ownerStartTicks)) continue;
    if (await killOrphan(record)) killed.push(record.pid);
    if (record.tempDir !== undefined) await rm(record.tempDir, { recursive: true, force: true });
    removePidRecord(record.pid);
  }
  return killed;
}
