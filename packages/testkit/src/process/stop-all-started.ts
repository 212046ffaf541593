import { registry } from "./registry.js";
import { removeTempDir } from "./temp-dir.js";

/**
 * Stops every server this process started (gracefully, then SIGKILL), kills any helper
 * process still running and removes every temp dir. Safe to call more than once.
 * Throws an AggregateError if some server failed to stop, after trying all of them.
 */
export async function stopAllStarted(): Promise<void> {
  const state = registry();
  const results = await Promise.allSettled([...state.servers].map((server) => server.stop()));
  // Children no server owns any more: a start that failed half-way, a helper command.
  await Promise.all([...state.children].map((child) => child.kill9()));
  await Promise.all([...state.tempDirs].map((dir) => removeTempDir(dir)));
  const failures = results.flatMap((result) =>
    result.status === "rejected" ? [result.reason as unknown] : [],
  );
  if (failures.length > 0) throw new AggregateError(failures, "some servers did not stop cleanly");
}

/** Pids of every child of this process that the testkit started and that still runs. */
export function listStartedPids(): number[] {
  return [...registry().children].map((child) => child.pid);
}
