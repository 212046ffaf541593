import { readFileSync } from "node:fs";

/** Lines of a server log quoted in a startup error: enough for the cause, not a flood. */
const LOG_TAIL_LINES = 25;

/** The last lines of a log file, or a note when there is none yet. */
export function readLogTail(logPath: string, lines = LOG_TAIL_LINES): string {
  try {
    return readFileSync(logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log written)";
  }
}

/**
 * A server did not come up. Carries the tail of its log so the cause shows in the test
 * report, and says whether the port was taken so the caller can retry on another one.
 */
export class StartupError extends Error {
  override readonly name = "StartupError";
  /** True when the server logged "Address already in use". */
  readonly portInUse: boolean;

  constructor(message: string, logPath: string, options?: ErrorOptions) {
    const tail = readLogTail(logPath);
    super(`${message}\n--- last lines of ${logPath} ---\n${tail}`, options);
    this.portInUse = tail.includes("Address already in use");
  }
}
