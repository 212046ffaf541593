import { claimedUpdate, fencedUpdate, type FencedHolder, type GuardResult } from "@warden/sdk";
import type { PoolConnection } from "mysql2/promise";
import type { GuardMode } from "../checker/run-facts.js";

/** The account row as the guards address it. */
export function accountTarget(account: string) {
  return { table: "account", where: { id: account } } as const;
}

/**
 * Writes the new balance through the guard under test, inside the caller's transaction:
 * `rmw` checks the claim this lock made before its read (fence AND lockId), `fence-only`
 * checks only that no newer fence wrote — the negative control, which lets an old
 * holder's write land between a new holder's read and write.
 */
export function guardedWrite(
  guard: GuardMode,
  connection: PoolConnection,
  lock: FencedHolder,
  account: string,
  balance: number,
): Promise<GuardResult> {
  const target = { ...accountTarget(account), set: { balance } };
  return guard === "rmw"
    ? claimedUpdate(connection, lock, target)
    : fencedUpdate(connection, lock, target);
}
