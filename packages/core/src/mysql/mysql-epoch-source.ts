import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { EpochSource } from "../fence/epoch-source.js";

/**
 * Mints in one statement: creates the row at epoch 1 or adds 1, and LAST_INSERT_ID(expr)
 * hands the new value back in the reply, so no second read can see another minter's
 * value. Parameter: 1 reason.
 */
const MINT_EPOCH = `INSERT INTO fence_epoch (id, epoch, reason) VALUES (1, LAST_INSERT_ID(1), ?)
  ON DUPLICATE KEY UPDATE epoch = LAST_INSERT_ID(epoch + 1), reason = VALUES(reason), minted_at = NOW(3)`;

const CURRENT_EPOCH = "SELECT CAST(epoch AS CHAR) AS epoch FROM fence_epoch WHERE id = 1";

/** Longest reason stored with an epoch, in characters (`fence_epoch.reason`). */
const MAX_REASON_CHARS = 200;

/**
 * The durable fencing epoch in MySQL's `fence_epoch` row, shared by every tier and every
 * server: InnoDB commits the new value before the reply, so a minted epoch survives
 * crashes and is never handed out twice.
 */
export class MysqlEpochSource implements EpochSource {
  constructor(private readonly pool: Pool) {}

  async current(): Promise<number> {
    const [rows] = await this.pool.execute<RowDataPacket[]>(CURRENT_EPOCH);
    return Number(rows[0]?.epoch ?? 0);
  }

  async mint(reason: string): Promise<number> {
    const [result] = await this.pool.execute<ResultSetHeader>(MINT_EPOCH, [
      reason.slice(0, MAX_REASON_CHARS),
    ]);
    const epoch = Number(result.insertId);
    if (!Number.isSafeInteger(epoch) || epoch < 1) {
      throw new Error(`fence_epoch mint returned ${String(result.insertId)}`);
    }
    return epoch;
  }
}
