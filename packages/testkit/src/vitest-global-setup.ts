/**
 * Vitest `globalSetup` for every package that starts servers: reference it as
 * `globalSetup: ["../../packages/testkit/src/vitest-global-setup.ts"]`. It runs in the
 * main vitest process, before and after all workers, and kills servers left behind by
 * a worker that died without cleaning up (or by an earlier, interrupted run).
 */
import { reapOrphans } from "./process/reap-orphans.js";

/** Reaps what an earlier, interrupted run left behind. */
export async function setup(): Promise<void> {
  await reapOrphans();
}

/** Reaps what this run's workers left behind; they have all exited by now. */
export async function teardown(): Promise<void> {
  await reapOrphans();
}
