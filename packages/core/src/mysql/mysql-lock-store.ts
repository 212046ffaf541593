import type { Pool, RowDataPacket } from "mysql2/promise";
import {
  validateLockKey,
  type AcquireResult,
  type LeaseView,
  type LockKey,
} from "@warden/contract";
import type {
  AcquireInput,
  ExtendInput,
  ForceReleaseInput,
  LeasePage,
  LeaveQueueInput,
  ListInput,
  LockDelayView,
  LockStore,
  QueuePlace,
  ReadQueueInput,
  ReleaseInput,
  ReleaseResult,
} from "../store/lock-store.js";
import { MAX_LOCK_DELAY_MS } from "../store/lock-store.js";
import { leaseFromRow } from "./lease-row.js";
import { MysqlStoreBase } from "./mysql-store-base.js";
import type { MysqlLockStoreOptions } from "./mysql-store-options.js";
import { acquireOp } from "./ops/acquire.js";
import { extendOp } from "./ops/extend.js";
import { forceReleaseOp } from "./ops/force-release.js";
import { inspectDelayOp } from "./ops/inspect-delay.js";
import { leaveQueueOp } from "./ops/leave-queue.js";
import { readQueueOp } from "./ops/read-queue.js";
import { listOp } from "./ops/list.js";
import { readRow, type MysqlOpContext } from "./ops/mysql-op-context.js";
import { releaseOp } from "./ops/release.js";

/**
 * The MySQL tier: one `mysql_lock` row per key, every decision in one conditional
 * statement judged on the database clock (see sql/), fences composed in SQL from the
 * tier's epoch and a MariaDB sequence (docs/decisions/0003). Each operation lives in its
 * own file under `ops/`.
 */
export class MysqlLockStore extends MysqlStoreBase implements LockStore {
  private readonly ctx: MysqlOpContext;

  private constructor(pool: Pool, options: MysqlLockStoreOptions) {
    super(pool, options);
    this.ctx = {
      pool,
      timeoutMs: this.options.commandTimeoutMs,
      deadlockAttempts: this.options.deadlockAttempts,
      events: this.events,
      epochs: this.epochs,
    };
  }

  /**
   * Opens the store's pool and checks that the tables answer. Grants start at the newest
   * epoch registered for this tier, or at a fresh one (see MysqlFenceEpochs).
   */
  static async open(options: MysqlLockStoreOptions): Promise<MysqlLockStore> {
    return new MysqlLockStore(await MysqlStoreBase.openPool(options, "mysql_lock"), options);
  }

  acquire(input: AcquireInput): Promise<AcquireResult> {
    return acquireOp(this.ctx, input);
  }

  release(input: ReleaseInput): Promise<ReleaseResult> {
    return releaseOp(this.ctx, input);
  }

  extend(input: ExtendInput): Promise<LeaseView> {
    return extendOp(this.ctx, input);
  }

  async inspect(input: LockKey): Promise<LeaseView | null> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const row = await readRow(this.ctx, key);
    return row && Number(row.live) === 1 ? leaseFromRow(row) : null;
  }

  inspectDelay(input: LockKey): Promise<LockDelayView | null> {
    return inspectDelayOp(this.ctx, input);
  }

  async hasLiveLeases(): Promise<boolean> {
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: "SELECT 1 FROM mysql_lock WHERE expires_at > NOW(3) LIMIT 1",
      timeout: this.options.commandTimeoutMs,
    });
    return rows.length > 0;
  }

  /**
   * True while some key is held back by a lock-delay (docs/decisions/0175): a live lease
   * that carries one (it may still end involuntarily), or a delay running after an expiry
   * or a force-release. Reads only rows that ended at most {@link MAX_LOCK_DELAY_MS} ago.
   */
  async hasLiveDelays(): Promise<boolean> {
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: `SELECT 1 FROM mysql_lock
             WHERE expires_at > NOW(3) - INTERVAL ${MAX_LOCK_DELAY_MS} * 1000 MICROSECOND
               AND lock_delay_ms > 0
               AND expires_at + INTERVAL lock_delay_ms * 1000 MICROSECOND > NOW(3)
             LIMIT 1`,
      timeout: this.options.commandTimeoutMs,
    });
    return rows.length > 0;
  }

  list(input: ListInput): Promise<LeasePage> {
    return listOp(this.ctx, input);
  }

  forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    return forceReleaseOp(this.ctx, input);
  }

  leaveQueue(input: LeaveQueueInput): Promise<boolean> {
    return leaveQueueOp(this.ctx, input);
  }

  readQueue(input: ReadQueueInput): Promise<QueuePlace[]> {
    return readQueueOp(this.ctx, input);
  }
}
