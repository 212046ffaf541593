import type { Pool } from "mysql2/promise";
import { claimFence, claimedUpdate, type Warden } from "@warden/sdk";

/**
 * Moves `amount` from one account to another. Both accounts are locked as one set, taken
 * in one canonical order whatever order the caller names them in, so two opposite
 * transfers never deadlock; each row is claimed for its own key's fence before it is read.
 */
export async function transfer(
  warden: Warden,
  db: Pool,
  from: string,
  to: string,
  amount: number,
): Promise<"done" | "insufficient"> {
  // All or nothing within 5 s; a transfer to the same account is refused (duplicate key).
  await using accounts = await warden.acquireAll("account:balance", [from, to], {
    waitMs: 5_000,
  });
  const balance = new Map<string, number>();
  for (const id of accounts.businessKeys) {
    const claim = await claimFence(db, accounts.lock(id), { table: "account", where: { id } });
    if (claim.outcome === "stale") throw new Error(`lost the lock on account ${id}`);
    const [rows] = await db.execute("SELECT balance FROM account WHERE id = ?", [id]);
    balance.set(id, (rows as Array<{ balance: number }>)[0]!.balance);
  }
  if (balance.get(from)! < amount) return "insufficient";
  accounts.signal.throwIfAborted(); // one signal for the set: every lock is still held
  const conn = await db.getConnection();
  try {
    await conn.beginTransaction();
    for (const [id, delta] of [
      [from, -amount],
      [to, amount],
    ] as const) {
      const write = await claimedUpdate(conn, accounts.lock(id), {
        table: "account",
        set: { balance: balance.get(id)! + delta },
        where: { id },
      });
      if (write.outcome === "stale") throw new Error(`lost the lock on account ${id}`);
    }
    await conn.commit();
    return "done";
  } catch (error) {
    await conn.rollback();
    throw error;
  } finally {
    conn.release();
  }
}
