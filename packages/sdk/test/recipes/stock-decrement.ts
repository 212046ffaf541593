import type { Pool } from "mysql2/promise";
import { claimFence, claimedUpdate, type Warden } from "@warden/sdk";

/**
 * Takes one unit of `sku` off the shelf and returns what is left. A read-modify-write:
 * claim the row for this lock's fence BEFORE reading it, then write only while the row
 * still carries the claim, so a paused old holder can never write in between.
 */
export async function takeOneFromStock(warden: Warden, db: Pool, sku: string): Promise<number> {
  return warden.withLock(
    "stock:decrement",
    sku,
    async (lock) => {
      const claim = await claimFence(db, lock, { table: "stock", where: { sku } });
      if (claim.outcome === "stale") throw new Error(`lost the lock on ${sku} before reading`);
      const [rows] = await db.execute("SELECT qty FROM stock WHERE sku = ?", [sku]);
      const qty = (rows as Array<{ qty: number }>)[0]?.qty ?? 0;
      if (qty === 0) throw new Error(`${sku} is out of stock`);
      const write = await claimedUpdate(db, lock, {
        table: "stock",
        set: { qty: qty - 1 },
        where: { sku },
      });
      // A newer holder claimed the row after our read: nothing was written. Never retry.
      if (write.outcome === "stale") throw new Error(`lost the lock on ${sku} before writing`);
      return qty - 1;
    },
    { leaseMs: 5_000, waitMs: 2_000 },
  );
}
