import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processStartTicks } from "./process-identity.js";
import { ensureTestkitDir } from "./temp-dir.js";

/**
 * One started process as written to disk, so a later run can kill it if the process
 * that started it died without cleaning up (a test worker killed with SIGKILL).
 */
export interface PidRecord {
  readonly pid: number;
  readonly startTicks: string | undefined;
  readonly command: string;
  readonly ownerPid: number;
  readonly ownerStartTicks: string | undefined;
  /** Directory to remove together with the process. */
  readonly tempDir: string | undefined;
}

function pidDir(): string {
  return ensureTestkitDir("pids");
}

/** Records a child of this process. */
export function writePidRecord(pid: number, command: string, tempDir?: string): void {
  const record: PidRecord = {
    pid,
    startTicks: processStartTicks(pid),
    command,
    ownerPid: process.pid,
    ownerStartTicks: processStartTicks(process.pid),
    tempDir,
  };
  const path = join(pidDir(), `${pid}.json`);
  // Write then rename: a reaper in another process must never read half a record.
  writeFileSync(`${path}.tmp`, JSON.stringify(record));
  renameSync(`${path}.tmp`, path);
}

/** Forgets a process; missing is fine. */
export function removePidRecord(pid: number): void {
  rmSync(join(pidDir(), `${pid}.json`), { force: true });
}

/** Every complete record on disk. */
export function readPidRecords(): PidRecord[] {
  const dir = pidDir();
  const records: PidRecord[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    try {
      records.push(JSON.parse(readFileSync(join(dir, name), "utf8")) as PidRecord);
    } catch {
      // Removed by its owner between readdir and read: nothing left to reap.
    }
  }
  return records;
}
