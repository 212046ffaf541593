import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { DELETE_SWEEPABLE, FIND_SWEEPABLE } from "./sql/sweep-expired.js";

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

/** Shortest allowed `retainMs`: five times the longest lease (60 000 ms) would be safer; 10 s is the floor. */
const MIN_RETAIN_MS = 10_000;

/**
 * Deletes `mysql_lock` rows whose lease ended more than `retainMs` ago, in batches of at
 * most `batchSize` by primary-key range, so it never holds many row locks or holds them
 * for long. Each DELETE re-checks expiry, so a row taken over meanwhile is never removed.
 * Its timer is unref'd: it never keeps a process alive.
 */
export class MysqlLeaseSweeper {
  private readonly options: typeof SWEEPER_DEFAULTS;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly pool: Pool,
    options: MysqlLeaseSweeperOptions = {},
  ) {
    const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    this.options = { ...SWEEPER_DEFAULTS, ...defined };
    for (const name of ["intervalMs", "batchSize", "retainMs"] as const) {
      if (!Number.isInteger(this.options[name]) || this.options[name] < 1) {
        throw new InvalidArgumentError(name, "must be a positive integer");
      }
    }
    if (this.options.batchSize > 500)
      throw new InvalidArgumentError("batchSize", "must be at most 500 rows");
    if (this.options.retainMs < MIN_RETAIN_MS) {
      throw new InvalidArgumentError("retainMs", `must be at least ${MIN_RETAIN_MS} ms`);
    }
  }

  /** Sweeps every `intervalMs` until {@link stop}. Errors are swallowed: the next run retries. */
  start(): void {
    this.timer ??= setInterval(
      () => void this.sweep().catch(() => undefined),
      this.options.intervalMs,
    );
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One full pass over the table; returns the number of rows deleted. Concurrent calls share it. */
  sweep(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<number> {
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
}
