import type { Pool } from "mysql2/promise";
import { PeriodicSweeper, type SweepListener } from "../periodic-sweeper.js";
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
  protected readonly name = "rwlock";

  constructor(pool: Pool, options: MysqlRwSweeperOptions = {}, onSweep?: SweepListener) {
    super(pool, RW_SWEEPER_DEFAULTS, options, onSweep);
  }

  /** One full pass: expired grants, lapsed intents, then idle key rows. */
  protected async pass(): Promise<RwSweepCounts> {
    const grants = await this.drain(RW_SWEEP_GRANTS);
    const intents = await this.drain(RW_SWEEP_INTENTS);
    const keys = await this.removeIdleKeys(RW_FIND_IDLE_KEYS, RW_DELETE_IDLE_KEY);
    return { grants, intents, keys };
  }

  protected rowsOf(counts: RwSweepCounts): number {
    return counts.grants + counts.intents + counts.keys;
  }
}
