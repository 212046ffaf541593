import { listStartedPids, stopAllStarted } from "@warden/testkit";
import { readLedger, readUndoneGrants } from "../ledger/ledger-snapshot.js";
import type { AccountRow, LedgerRow } from "../ledger/ledger-types.js";
import type { Stack } from "../stack/start-stack.js";

/** What teardown saved before the servers went away. */
export interface TeardownResult {
  readonly ledger: { accounts: AccountRow[]; ledger: LedgerRow[] } | null;
  /**
   * Grants the servers undone because too few replicas acknowledged them, per resource,
   * from Warden's audit (null when it could not be read).
   */
  readonly undoneGrants: Readonly<Record<string, number>> | null;
  /** Testkit servers (Redis, MariaDB) that ran at the end, to check they are gone. */
  readonly testkitPids: readonly number[];
  readonly errors: readonly string[];
}

async function attempt(
  errors: string[],
  what: string,
  step: () => Promise<unknown> | undefined,
): Promise<void> {
  try {
    await step();
  } catch (error) {
    errors.push(`${what}: ${(error as Error).message}`);
  }
}

/**
 * Stops whatever part of the stack was started, in the reverse order of its start, and
 * reads the ledger before its database goes. Every step is tried even if another failed.
 */
export async function teardown(stack: Partial<Stack>): Promise<TeardownResult> {
  const errors: string[] = [];
  stack.observer?.stop();
  await attempt(errors, "stopping workers", () => stack.fleet?.stopAll(5_000));
  await attempt(errors, "closing the probe client", () => stack.probe?.close());
  await attempt(
    errors,
    "stopping servers",
    () => stack.servers && Promise.all(stack.servers.map((s) => s.stop())),
  );
  await attempt(errors, "stopping the proxy", () => stack.proxy?.stop());
  let ledger: TeardownResult["ledger"] = null;
  if (stack.ledgerDb) {
    const url = stack.ledgerDb.url;
    await attempt(errors, "reading the ledger", async () => {
      ledger = await readLedger(url);
    });
  }
  // After the servers stopped: each flushed its audit buffer on the way out.
  let undoneGrants: TeardownResult["undoneGrants"] = null;
  if (stack.wardenDb) {
    const url = stack.wardenDb.url;
    await attempt(errors, "reading Warden's audit", async () => {
      undoneGrants = await readUndoneGrants(url);
    });
  }
  const testkitPids = listStartedPids();
  await attempt(errors, "stopping Redis and MariaDB", () => stopAllStarted());
  return { ledger, undoneGrants, testkitPids, errors };
}
