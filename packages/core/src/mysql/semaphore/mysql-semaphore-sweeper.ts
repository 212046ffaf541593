import type { Pool } from "mysql2/promise";
import { PeriodicSweeper, type SweepListener } from "../periodic-sweeper.js";
import { DELETE_IDLE_KEY, FIND_IDLE_KEYS, SWEEP_PERMITS } from "./semaphore-sql.js";

/** Options of {@link MysqlSemaphoreSweeper}. */
export interface MysqlSemaphoreSweeperOptions {
  /** Time between sweeps, in ms. @defaultValue 30 000 */
  readonly intervalMs?: number;
  /** Most rows one DELETE removes. @defaultValue 500 */
  readonly batchSize?: number;
}

/** Defaults of {@link MysqlSemaphoreSweeperOptions}. */
export const SEMAPHORE_SWEEPER_DEFAULTS = Object.freeze({ intervalMs: 30_000, batchSize: 500 });

/** What one pass removed. */
export interface SemaphoreSweepCounts {
  readonly permits: number;
  readonly keys: number;
}

/**
 * Cleans the MySQL tier's semaphore tables of keys nobody asks for again (decision 0218):
 * expired permit rows (each key's next acquire removes its own anyway), then key rows left with
 * no permit row and no fair waiter. Nothing here decides a grant. Removing a key's row forgets
 * its last fence and total: the next acquire creates the row again, and its fence comes from
 * the sequence, which is above every fence minted before (the key's row lock orders an acquire
 * and this delete). Dead waiters' rows are the lease sweeper's (`mysql_lock_waiter` is shared).
 * Its timer is unref'd.
 */
export class MysqlSemaphoreSweeper extends PeriodicSweeper<
  Required<MysqlSemaphoreSweeperOptions>,
  SemaphoreSweepCounts
> {
  protected readonly name = "semaphore";

  constructor(pool: Pool, options: MysqlSemaphoreSweeperOptions = {}, onSweep?: SweepListener) {
    super(pool, SEMAPHORE_SWEEPER_DEFAULTS, options, onSweep);
  }

  /** One full pass: expired permits, then idle key rows. */
  protected async pass(): Promise<SemaphoreSweepCounts> {
    const permits = await this.drain(SWEEP_PERMITS);
    const keys = await this.removeIdleKeys(FIND_IDLE_KEYS, DELETE_IDLE_KEY);
    return { permits, keys };
  }

  protected rowsOf(counts: SemaphoreSweepCounts): number {
    return counts.permits + counts.keys;
  }
}
