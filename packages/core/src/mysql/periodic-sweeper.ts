import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { InvalidArgumentError } from "@warden/contract";

/** The options every sweeper has: how often it runs and how many rows one DELETE removes. */
export interface SweeperTimings {
  readonly intervalMs: number;
  readonly batchSize: number;
}

/** Most rows one sweeper DELETE may remove: it never holds many row locks, nor for long. */
export const MAX_SWEEP_BATCH = 500;

/** Which MySQL sweeper a {@link SweepReport} comes from. */
export type SweeperName = "lease" | "rwlock" | "semaphore";

/**
 * How one sweep pass ended. `rows` is what the pass removed (every table together); a failed
 * pass has `error` (the statement's), its rows are unknown and counted as 0, and the next
 * pass retries from the start.
 */
export type SweepReport =
  | {
      readonly sweeper: SweeperName;
      readonly outcome: "ok";
      readonly rows: number;
      readonly durationMs: number;
    }
  | {
      readonly sweeper: SweeperName;
      readonly outcome: "failed";
      readonly rows: 0;
      readonly durationMs: number;
      readonly error: unknown;
    };

/** Told about every pass of a sweeper; must not throw (what it throws is dropped). */
export type SweepListener = (report: SweepReport) => void;

/**
 * What the MySQL sweepers (the lease rows', the read-write and semaphore tables') share
 * (decisions 0179, 0218): options merged over their defaults and checked (every one a
 * positive integer, the batch at most {@link MAX_SWEEP_BATCH}), an unref'd timer, one pass
 * at a time, a {@link SweepReport} of every pass to the listener (decision 0220: a sweeper
 * that keeps failing must be seen, the tables it keeps clean grow meanwhile), and the batched
 * drain and idle-key walk of the coordination tables. A sweeper adds its name, its pass and
 * how many rows a pass's result removed. Nothing a sweeper does decides a grant.
 */
export abstract class PeriodicSweeper<Options extends SweeperTimings, Result> {
  protected readonly options: Options;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<Result> | undefined;

  protected constructor(
    protected readonly pool: Pool,
    defaults: Options,
    options: Partial<Options>,
    private readonly onSweep?: SweepListener,
  ) {
    const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    this.options = { ...defaults, ...defined };
    for (const name of Object.keys(defaults) as (keyof Options & string)[]) {
      const value = this.options[name];
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
        throw new InvalidArgumentError(name, "must be a positive integer");
      }
    }
    if (this.options.batchSize > MAX_SWEEP_BATCH) {
      throw new InvalidArgumentError("batchSize", `must be at most ${MAX_SWEEP_BATCH} rows`);
    }
  }

  /**
   * Sweeps every `intervalMs` until {@link stop}. A failed pass is reported to the listener
   * and otherwise dropped: the next run retries.
   */
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

  /** One full pass, reported to the listener; concurrent calls share it. */
  sweep(): Promise<Result> {
    this.running ??= this.reported().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Which sweeper this is, in its reports. */
  protected abstract readonly name: SweeperName;

  /** One full pass over the sweeper's tables. */
  protected abstract pass(): Promise<Result>;

  /** The rows a pass's result says it removed, all tables together. */
  protected abstract rowsOf(result: Result): number;

  private async reported(): Promise<Result> {
    const started = performance.now();
    try {
      const result = await this.pass();
      this.report({
        sweeper: this.name,
        outcome: "ok",
        rows: this.rowsOf(result),
        durationMs: performance.now() - started,
      });
      return result;
    } catch (error) {
      this.report({
        sweeper: this.name,
        outcome: "failed",
        rows: 0,
        durationMs: performance.now() - started,
        error,
      });
      throw error;
    }
  }

  private report(report: SweepReport): void {
    try {
      this.onSweep?.(report);
    } catch {
      // A listener's failure must not turn a pass's outcome around (see SweepListener).
    }
  }

  /**
   * Runs a `DELETE … LIMIT ?` (parameter: the batch size) until a run removes less than a
   * batch; returns the rows removed.
   */
  protected async drain(sql: string): Promise<number> {
    let total = 0;
    for (;;) {
      const [result] = await this.pool.query<ResultSetHeader>(sql, [this.options.batchSize]);
      total += result.affectedRows;
      if (result.affectedRows < this.options.batchSize) return total;
    }
  }

  /**
   * Removes a coordination table's idle key rows: `find` lists candidate ids after a cursor
   * (parameters: cursor id, batch size), `remove` deletes one id while re-checking that it is
   * still idle. One row per DELETE: a sweeper never holds more than one key's row lock.
   * Returns the rows removed.
   */
  protected async removeIdleKeys(find: string, remove: string): Promise<number> {
    let removed = 0;
    let cursor = "0";
    for (;;) {
      const [rows] = await this.pool.query<RowDataPacket[]>(find, [cursor, this.options.batchSize]);
      for (const row of rows) {
        const [result] = await this.pool.query<ResultSetHeader>(remove, [row.id]);
        removed += result.affectedRows;
      }
      if (rows.length < this.options.batchSize) return removed;
      cursor = String(rows.at(-1)!.id);
    }
  }
}
