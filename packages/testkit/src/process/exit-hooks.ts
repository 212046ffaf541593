import { removePidRecord } from "./pid-records.js";
import { registry } from "./registry.js";
import { removeTempDirSync } from "./temp-dir.js";

/** Signals after which a test process goes away without running `afterAll`. */
const FATAL_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Kills every child with SIGKILL and removes every temp dir, synchronously. */
export function killAllSync(): void {
  const { children, tempDirs } = registry();
  for (const child of children) {
    child.killSync();
    removePidRecord(child.pid);
  }
  for (const dir of tempDirs) removeTempDirSync(dir);
}

/**
 * Makes sure no server outlives this process: on `exit` and on fatal signals every
 * child is killed. Installed once per process, on the first spawn.
 */
export function installExitHooks(): void {
  const state = registry();
  if (state.exitHooksInstalled) return;
  state.exitHooksInstalled = true;
  process.once("exit", killAllSync);
  for (const signal of FATAL_SIGNALS) {
    const onSignal = (): void => {
      killAllSync();
      // Our listener replaced Node's default "terminate on signal"; restore it unless
      // someone else (the test runner) handles the signal and decides when to exit.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}
