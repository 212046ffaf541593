import { setTimeout as sleep } from "node:timers/promises";
import { TESTKIT_DEFAULTS } from "../defaults.js";
import type { LoggedChild } from "./logged-child.js";
import { StartupError } from "./startup-error.js";

/** What {@link waitUntil} waits for and how long. */
export interface WaitSpec {
  /** Says what we wait for, in the error: "redis on port 23001 to answer PING". */
  readonly what: string;
  readonly timeoutMs: number;
  /** @defaultValue {@link TESTKIT_DEFAULTS.pollIntervalMs} */
  readonly intervalMs?: number;
  /** Stop waiting as soon as this process exits, and quote its log. */
  readonly child?: { readonly process: LoggedChild; readonly logPath: string };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Polls `probe` until it returns something other than `false`, and returns that. A
 * probe that throws counts as "not yet" and its last error is quoted if time runs out,
 * so probes throw to say *why* they are not done. Throws {@link StartupError} when the
 * watched child exits first, and a plain Error naming `what` on timeout.
 */
export async function waitUntil<T>(probe: () => Promise<T | false>, spec: WaitSpec): Promise<T> {
  const deadline = performance.now() + spec.timeoutMs;
  let lastError = "probe returned false";
  for (;;) {
    if (spec.child && !spec.child.process.running) {
      const { code, signal } = await spec.child.process.exited;
      throw new StartupError(
        `${spec.what}: the process exited first (code ${code}, signal ${signal})`,
        spec.child.logPath,
      );
    }
    try {
      const result = await probe();
      if (result !== false) return result;
    } catch (error) {
      lastError = describe(error);
    }
    if (performance.now() >= deadline) {
      const message = `timed out after ${spec.timeoutMs} ms waiting for ${spec.what} (last: ${lastError})`;
      throw spec.child ? new StartupError(message, spec.child.logPath) : new Error(message);
    }
    await sleep(spec.intervalMs ?? TESTKIT_DEFAULTS.pollIntervalMs);
  }
}
