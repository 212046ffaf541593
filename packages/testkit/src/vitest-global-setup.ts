/**
 * Vitest `globalSetup` for every package that starts servers: reference it as
 * `globalSetup: ["../../packages/testkit/src/vitest-global-setup.ts"]`. It runs in the
 * main vitest process, before and after all workers: it kills servers left behind by a
 * worker that died without cleaning up (or by an earlier, interrupted run), and finds the
 * MariaDB the run's tests share, starting a private one when the machine has none
 * (`findSharedTestMariaDb`). Workers inherit its URL as `WARDEN_TEST_MYSQL_URL`; the
 * setups of the other projects of a run find it there and share it.
 */
import { findSharedTestMariaDb } from "./mariadb/shared-test-mariadb.js";
import { reapOrphans } from "./process/reap-orphans.js";
import type { MariaDbServer } from "./types.js";

let started: MariaDbServer | null = null;

/** Reaps what an earlier, interrupted run left behind, then finds the shared MariaDB. */
export async function setup(): Promise<void> {
  await reapOrphans();
  const shared = await findSharedTestMariaDb();
  if (shared.started === null) return;
  started = shared.started;
  process.env.WARDEN_TEST_MYSQL_URL = shared.url;
  console.log(
    `[testkit] no MariaDB answered at 127.0.0.1:3306 and none is configured ` +
      `(WARDEN_TEST_MYSQL_URL): the tests share a private one at ${shared.url}`,
  );
}

/** Stops the private MariaDB, if this setup started one; reaps what workers left behind. */
export async function teardown(): Promise<void> {
  await started?.stop();
  started = null;
  await reapOrphans();
}
