import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { InvalidArgumentError } from "@warden/contract";
import { PeriodicSweeper, type SweepListener } from "./periodic-sweeper.js";
import { DELETE_SWEEPABLE, FIND_SWEEPABLE } from "./sql/sweep-expired.js";
import { SWEEP_DEAD_WAITERS } from "./sql/waiters.js";

/** Options of {@link MysqlLeaseSweeper}. */
export interface MysqlLeaseSweeperOptions {
  /** Time between sweeps, in ms. @defaultValue 30 000 */
  readonly intervalMs?: number;
  /** Most rows one DELETE removes (by primary-key range). @defaultValue 500 */
  readonly batchSize?: number;
  /**
   * How long an ended lease's row stays, in ms. The row holds the key's highest fence;
   * keeping it well past any statement's lifetime means a grant whose fence was computed
   * before a delete can never land after it with a smaller fence (docs/decisions/0003).
   * @defaultValue 60 000
   */
  readonly retainMs?: number;
}

/** Defaults of {@link MysqlLeaseSweeperOptions}. */
export const SWEEPER_DEFAULTS = Object.freeze({
  intervalMs: 30_000,
  batchSize: 500,
  retainMs: 60_000,
});

/** What one pass removed: ended leases' rows and long-dead fair waiters' rows. */
export interface LeaseSweepCounts {
  readonly leases: number;
  readonly waiters: number;
}

/** Shortest allowed `retainMs`: five times the longest lease (60 000 ms) would be safer; 10 s is the floor. */
const MIN_RETAIN_MS = 10_000;

/**
 * Deletes `mysql_lock` rows whose lease ended more than `retainMs` ago, in batches of at
 * most `batchSize` by primary-key range, so it never holds many row locks or holds them
 * for long. Each DELETE re-checks expiry, so a row taken over meanwhile is never removed.
 * Its timer is unref'd: it never keeps a process alive.
 */
export class MysqlLeaseSweeper extends PeriodicSweeper<
  Required<MysqlLeaseSweeperOptions>,
  LeaseSweepCounts
> {
  protected readonly name = "lease";

  constructor(pool: Pool, options: MysqlLeaseSweeperOptions = {}, onSweep?: SweepListener) {
    super(pool, SWEEPER_DEFAULTS, options, onSweep);
    if (this.options.retainMs < MIN_RETAIN_MS) {
      throw new InvalidArgumentError("retainMs", `must be at least ${MIN_RETAIN_MS} ms`);
    }
  }

  /** One full pass over `mysql_lock_waiter`'s long-dead waiters, then over the lease rows. */
  protected async pass(): Promise<LeaseSweepCounts> {
    const waiters = await this.sweepDeadWaiters();
    return { leases: await this.sweepLeases(), waiters };
  }

  protected rowsOf(counts: LeaseSweepCounts): number {
    return counts.leases + counts.waiters;
  }

  /** Deletes ended leases' rows older than `retainMs`; returns how many. */
  private async sweepLeases(): Promise<number> {
    let cursor = "0";
    let deleted = 0;
    for (;;) {
      const [rows] = await this.pool.execute<RowDataPacket[]>(FIND_SWEEPABLE, [
        cursor,
        this.options.retainMs,
        String(this.options.batchSize),
      ]);
      const first = rows[0]?.id as string | undefined;
      const last = rows.at(-1)?.id as string | undefined;
      if (first === undefined || last === undefined) return deleted;
      const [result] = await this.pool.execute<ResultSetHeader>(DELETE_SWEEPABLE, [
        first,
        last,
        this.options.retainMs,
        String(this.options.batchSize),
      ]);
      deleted += result.affectedRows;
      cursor = last;
      if (rows.length < this.options.batchSize) return deleted;
    }
  }

  /** Deletes fair waiters dead for longer than `retainMs`, in batches of `batchSize`; returns how many. */
  private async sweepDeadWaiters(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const [result] = await this.pool.execute<ResultSetHeader>(SWEEP_DEAD_WAITERS, [
        this.options.retainMs,
        String(this.options.batchSize),
      ]);
      deleted += result.affectedRows;
      if (result.affectedRows < this.options.batchSize) return deleted;
    }
  }
}
