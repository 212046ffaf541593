import type { Pool } from "mysql2/promise";
import { fencedUpdate, type Warden } from "@warden/sdk";

/** Runs the nightly report at most once per day, whichever instance of the service gets there. */
export async function runNightlyReport(
  warden: Warden,
  db: Pool,
  day: string,
  build: (signal: AbortSignal) => Promise<string>,
): Promise<"done" | "skipped" | "lost"> {
  // Every instance tries at 02:00; one gets the lock, the others skip without waiting.
  const lock = await warden.tryAcquire("report:nightly", day, { maxHoldMs: 30 * 60_000 });
  if (!lock) return "skipped";
  try {
    const [rows] = await db.execute("SELECT status FROM job_run WHERE day = ?", [day]);
    if ((rows as Array<{ status: string }>)[0]?.status === "done") return "skipped";
    const output = await build(lock.signal);
    // One fenced write marks the day done; a holder that lost the lock meanwhile is refused.
    const { outcome } = await fencedUpdate(db, lock, {
      table: "job_run",
      set: { status: "done", output },
      where: { day },
    });
    return outcome === "stale" ? "lost" : "done";
  } finally {
    await lock.release();
  }
}
