import { removePidRecord, writePidRecord } from "./pid-records.js";

/**
 * Records a process a test started itself (not through the testkit, e.g. a server under
 * test), so that `reapOrphans` kills it and removes `tempDir` if this process dies
 * without cleaning up. Call {@link untrackChild} once it has exited.
 */
export function trackChild(pid: number, command: string, tempDir?: string): void {
  writePidRecord(pid, command, tempDir);
}

/** Forgets a process recorded with {@link trackChild}. */
export function untrackChild(pid: number): void {
  removePidRecord(pid);
}
