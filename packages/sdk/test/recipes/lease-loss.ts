import { LeaseLostError, type Warden } from "@warden/sdk";

/**
 * Copies a batch step by step. `lock.signal` aborts as soon as the lease may be lost — a
 * renewal refused or unconfirmed, the renewal limit, maxHoldMs — before anyone else can
 * be granted the key: stop there, and let the next holder resume from the last step that
 * committed (with a fenced write).
 */
export async function copyBatch(
  warden: Warden,
  batchId: string,
  steps: ReadonlyArray<(signal: AbortSignal) => Promise<void>>,
): Promise<"done" | "lost"> {
  try {
    return await warden.withLock(
      "batch:copy",
      batchId,
      async (lock) => {
        for (const step of steps) {
          lock.signal.throwIfAborted(); // never start a step without the lock
          await step(lock.signal); // fetch, database drivers and timers honour it
        }
        return "done" as const;
      },
      { maxHoldMs: 60_000 },
    );
  } catch (error) {
    // withLock rethrows a loss even when the callback finished: its work was not exclusive.
    if (error instanceof LeaseLostError) return "lost";
    throw error;
  }
}
