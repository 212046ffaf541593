import type { Pool } from "mysql2/promise";
import { StoreEventEmitter } from "../events/event-emitter.js";
import { createLockPool } from "./lock-pool.js";
import { MysqlFenceEpochs } from "./mysql-fence-epochs.js";
import { resolveMysqlStoreOptions, type MysqlLockStoreOptions } from "./mysql-store-options.js";

/**
 * What the MySQL stores (mutex, semaphore, read-write lock) share (decision 0179): the
 * store's own pool, its resolved options, the event emitter and the tier's fencing epochs
 * (MysqlFenceEpochs) — set up here once — plus opening, probing, raising the epoch floor and
 * closing. A store adds its statements.
 */
export abstract class MysqlStoreBase {
  readonly tier = "mysql" as const;
  protected readonly options: ReturnType<typeof resolveMysqlStoreOptions>;
  protected readonly events: StoreEventEmitter;
  protected readonly epochs: MysqlFenceEpochs;
  private closed = false;

  protected constructor(
    protected readonly pool: Pool,
    options: MysqlLockStoreOptions,
  ) {
    this.options = resolveMysqlStoreOptions(options);
    this.events = new StoreEventEmitter("mysql", options.onEvent);
    this.epochs = new MysqlFenceEpochs(pool, options.epochSource, this.events);
  }

  /**
   * Opens a store's pool and checks that its table `table` answers (the pool is ended when
   * it does not). Grants start at the newest epoch registered for this tier, or at a fresh
   * one (see MysqlFenceEpochs).
   */
  protected static async openPool(options: MysqlLockStoreOptions, table: string): Promise<Pool> {
    const resolved = resolveMysqlStoreOptions(options);
    const pool = createLockPool(resolved.connection, resolved.poolSize);
    try {
      await pool.query({
        sql: `SELECT 1 FROM ${table} LIMIT 1`,
        timeout: resolved.commandTimeoutMs,
      });
    } catch (error) {
      await pool.end();
      throw error;
    }
    return pool;
  }

  /** The lowest epoch the controller has asked this store to grant at. */
  get minEpoch(): number {
    return this.epochs.minEpoch;
  }

  /** Raises the epoch floor after a tier switch; the next grant registers it first. */
  requireEpoch(epoch: number): void {
    this.epochs.require(epoch);
  }

  /** True when MySQL answers `SELECT 1` within the command timeout. */
  async probe(): Promise<boolean> {
    try {
      await this.pool.query({ sql: "SELECT 1", timeout: this.options.commandTimeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  /** Ends the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
