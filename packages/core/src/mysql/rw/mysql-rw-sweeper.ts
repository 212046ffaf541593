import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { PeriodicSweeper } from "../periodic-sweeper.js";
import {
  RW_DELETE_IDLE_KEY,
  RW_FIND_IDLE_KEYS,
  RW_SWEEP_GRANTS,
  RW_SWEEP_INTENTS,
} from "./rw-sql.js";

/** Options of {@link MysqlRwSweeper}. */
export interface MysqlRwSweeperOptions {
  /** Time between sweeps, in ms. @defaultValue 30 000 */
  readonly intervalMs?: number;
  /** Most rows one DELETE removes. @defaultValue 500 */
  readonly batchSize?: number;
}

/** Defaults of {@link MysqlRwSweeperOptions}. */
export const RW_SWEEPER_DEFAULTS = Object.freeze({ intervalMs: 30_000, batchSize: 500 });

/** What one pass removed. */
export interface RwSweepCounts {
  readonly grants: number;
  readonly intents: number;
  readonly keys: number;
}

/**
 * Cleans the MySQL tier's read-write tables of keys nobody asks for again (decision 0165):
 * expired grants and lapsed intents (each key's next decision removes its own anyway), then
 * key rows left with neither. Nothing here decides a grant, and removing a key's row only
 * forgets its read fence: the next grant mints a fresh fence from the sequence, which is above
 * every earlier one. Its timer is unref'd.
 */
export class MysqlRwSweeper extends PeriodicSweeper<
  Required<MysqlRwSweeperOptions>,
  RwSweepCounts
> {
  constructor(pool: Pool, options: MysqlRwSweeperOptions = {}) {
    super(pool, RW_SWEEPER_DEFAULTS, options);
  }

  /** One full pass: expired grants, lapsed intents, then idle key rows. */
  protected async pass(): Promise<RwSweepCounts> {
    const grants = await this.drain(RW_SWEEP_GRANTS);
    const intents = await this.drain(RW_SWEEP_INTENTS);
    let keys = 0;
    let cursor = "0";
    for (;;) {
      const [rows] = await this.pool.query<RowDataPacket[]>(RW_FIND_IDLE_KEYS, [
        cursor,
        this.options.batchSize,
      ]);
      // One row per DELETE: the sweeper never holds more than one key's row lock.
      for (const row of rows) {
        const [result] = await this.pool.query<ResultSetHeader>(RW_DELETE_IDLE_KEY, [row.id]);
        keys += result.affectedRows;
      }
      if (rows.length < this.options.batchSize) return { grants, intents, keys };
      cursor = String(rows.at(-1)!.id);
    }
  }

  private async drain(sql: string): Promise<number> {
    let total = 0;
    for (;;) {
      const [result] = await this.pool.query<ResultSetHeader>(sql, [this.options.batchSize]);
      total += result.affectedRows;
      if (result.affectedRows < this.options.batchSize) return total;
    }
  }
}
