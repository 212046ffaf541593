import { LoggedChild } from "./logged-child.js";
import { StartupError } from "./startup-error.js";

/** A one-shot command: what to run, where it logs and how long it may take. */
export interface RunSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly logPath: string;
  readonly timeoutMs: number;
  readonly tempDir?: string;
}

/**
 * Runs a helper command (mariadb-install-db, redis-cli --cluster create) as a tracked
 * child, so it dies with us too, and throws with its log tail unless it exits 0.
 */
export async function runToCompletion(spec: RunSpec): Promise<void> {
  const child = new LoggedChild(spec);
  const status = await child.exitWithin(spec.timeoutMs);
  const what = `${spec.command} ${spec.args.join(" ")}`;
  if (status === undefined) {
    await child.kill9();
    throw new StartupError(`${what} did not finish within ${spec.timeoutMs} ms`, spec.logPath);
  }
  if (status.code !== 0) {
    throw new StartupError(
      `${what} failed (code ${status.code}, signal ${status.signal})`,
      spec.logPath,
    );
  }
}
