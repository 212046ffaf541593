import { setTimeout as sleep } from "node:timers/promises";
import type { Warden } from "@warden/sdk";
import type { StuckLock } from "../checker/run-facts.js";

/**
 * Locks on the ledger's accounts still held once every worker has stopped and every
 * lease could have run out (`graceMs`): a lock nobody holds that nobody can take.
 */
export async function findStuckLocks(
  probe: Warden,
  resource: string,
  accounts: readonly string[],
  graceMs: number,
): Promise<StuckLock[]> {
  const deadline = performance.now() + graceMs;
  let stuck: StuckLock[] = [];
  do {
    stuck = [];
    for (const account of accounts) {
      const lease = await probe.inspect(resource, account).catch((error: unknown) => ({
        lockId: "?",
        holder: { clientId: `inspect failed: ${(error as Error).message}`, ownerId: "" },
      }));
      if (lease)
        stuck.push({
          account,
          lockId: lease.lockId,
          holder: `${lease.holder.clientId}/${lease.holder.ownerId}`,
        });
    }
    if (stuck.length === 0) return stuck;
    await sleep(250);
  } while (performance.now() < deadline);
  return stuck;
}
