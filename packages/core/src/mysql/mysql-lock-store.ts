import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LockUnavailableError } from "../errors/lock-unavailable-error.js";
import { NotHolderError } from "../errors/not-holder-error.js";
import type { UncertainOperation } from "../errors/outcome-unknown-error.js";
import type { LockEvent } from "../events/store-event.js";
import { newLockId } from "../store/lock-id.js";
import type {
  AcquireInput,
  ExtendInput,
  ForceReleaseInput,
  LeasePage,
  ListInput,
  LockStore,
  ReleaseInput,
  ReleaseResult,
} from "../store/lock-store.js";
import type { AcquireResult, LeaseView, LockKey } from "../store/types.js";
import {
  validateHolder,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  validatePageSize,
  validateResource,
  validateWaitReplicas,
} from "../validation/validate.js";
import { acquireStep, busyRefusal, type AcquireContext, type AcquireStep } from "./acquire-step.js";
import { retryDeadlocks } from "./deadlock-retry.js";
import { leaseFromRow, type LeaseRow } from "./lease-row.js";
import { createLockPool } from "./lock-pool.js";
import { MysqlFenceEpochs } from "./mysql-fence-epochs.js";
import { resolveMysqlStoreOptions, type MysqlLockStoreOptions } from "./mysql-store-options.js";
import { EXTEND_LOCK } from "./sql/extend-lock.js";
import { FORCE_RELEASE } from "./sql/force-release.js";
import { rowsMatched } from "./rows-matched.js";
import { storeFailure, uncertainOutcome, type FailureContext } from "./store-failure.js";
import { LIST_LEASES } from "./sql/list-leases.js";
import { READ_LEASE } from "./sql/read-lease.js";
import { RELEASE_LOCK } from "./sql/release-lock.js";

// Two renewals (stale epoch, then a counter that ran out) plus a retry for a row that
// changed under the report.
const MAX_ACQUIRE_STEPS = 4;
const CURSOR_PATTERN = /^[1-9][0-9]{0,19}$/;

/**
 * The MySQL tier: one `mysql_lock` row per key, every decision in one conditional
 * statement judged on the database clock (see sql/), fences composed in SQL from the
 * tier's epoch and a MariaDB sequence (docs/decisions/0003).
 */
export class MysqlLockStore implements LockStore {
  readonly tier = "mysql" as const;
  private readonly options: ReturnType<typeof resolveMysqlStoreOptions>;
  private readonly epochs: MysqlFenceEpochs;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    options: MysqlLockStoreOptions,
  ) {
    this.options = resolveMysqlStoreOptions(options);
    this.epochs = new MysqlFenceEpochs(pool, options.epochSource, options.onEvent);
  }

  /**
   * Opens the store's pool and checks that the tables answer. Grants start at the newest
   * epoch registered for this tier, or at a fresh one (see MysqlFenceEpochs).
   */
  static async open(options: MysqlLockStoreOptions): Promise<MysqlLockStore> {
    const resolved = resolveMysqlStoreOptions(options);
    const pool = createLockPool(resolved.connection, resolved.poolSize);
    try {
      await pool.execute({
        sql: "SELECT 1 FROM mysql_lock LIMIT 1",
        timeout: resolved.commandTimeoutMs,
      });
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new MysqlLockStore(pool, options);
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

  async acquire(input: AcquireInput): Promise<AcquireResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const holder = validateHolder(input.holder);
    const leaseMs = validateLeaseMs(input.leaseMs);
    validateWaitReplicas(input.waitReplicas);
    const lockId = newLockId();
    const ctx: AcquireContext = {
      pool: this.pool,
      timeoutMs: this.options.commandTimeoutMs,
      deadlockAttempts: this.options.deadlockAttempts,
      emit: (event) => this.emit(event),
    };
    let last: AcquireStep["kind"] = "retry";
    try {
      await this.epochs.ensureFloor();
      for (let step = 0; step < MAX_ACQUIRE_STEPS; step += 1) {
        const outcome = await acquireStep(ctx, key, holder, leaseMs, lockId);
        last = outcome.kind;
        if (outcome.kind === "answer") return outcome.result;
        if (outcome.kind === "lost")
          throw await uncertainOutcome(this.failureContext, "acquire", key, lockId);
        if (outcome.kind === "renew-epoch") await this.epochs.renew(outcome.reason);
      }
    } catch (error) {
      throw await storeFailure(this.failureContext, "acquire", key, lockId, error);
    }
    // Every attempt found the key held when its statement ran and free again when the
    // report read it: a hot key changing hands faster than two round trips. Nothing was
    // granted; that is a refusal ("busy, try again"), not an unavailable tier.
    if (last === "retry") return busyRefusal(ctx, key, holder).result;
    throw new LockUnavailableError("the MySQL tier could not settle on a fencing epoch");
  }

  async release(input: ReleaseInput): Promise<ReleaseResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const matched = await this.update("release", key, lockId, RELEASE_LOCK, [
      key.resource,
      key.businessKey,
      lockId,
    ]);
    if (!matched) throw await this.notHolder(key, lockId);
    const after = await this.readRow(key);
    const reentry = after?.lock_id === lockId ? Number(after.reentry) : 0;
    this.emit({ type: "release", ...this.base(key), lockId, released: reentry === 0 });
    return { released: reentry === 0, reentry };
  }

  async extend(input: ExtendInput): Promise<LeaseView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const matched = await this.update("extend", key, lockId, EXTEND_LOCK, [
      leaseMs,
      key.resource,
      key.businessKey,
      lockId,
    ]);
    if (!matched) throw await this.notHolder(key, lockId);
    this.emit({ type: "extend", ...this.base(key), lockId, leaseMs });
    const after = await this.readRow(key);
    if (after?.lock_id !== lockId) throw await this.notHolder(key, lockId);
    return leaseFromRow(after);
  }

  async inspect(input: LockKey): Promise<LeaseView | null> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const row = await this.readRow(key);
    return row && Number(row.live) === 1 ? leaseFromRow(row) : null;
  }

  /**
   * True while any lease in this tier is live (on the database clock). Once the fleet has
   * left MySQL no new lease can appear here (the acquire statement checks the shared
   * tier), so a false stays false until the next degrade.
   */
  async hasLiveLeases(): Promise<boolean> {
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: "SELECT 1 FROM mysql_lock WHERE expires_at > NOW(3) LIMIT 1",
      timeout: this.options.commandTimeoutMs,
    });
    return rows.length > 0;
  }

  async list(input: ListInput): Promise<LeasePage> {
    const resource = validateResource(input.resource);
    const limit = validatePageSize(input.limit);
    if (input.cursor !== undefined && !CURSOR_PATTERN.test(input.cursor)) {
      throw new InvalidArgumentError("cursor", "must be a cursor returned by list()");
    }
    const [rows] = await this.pool.execute<LeaseRow[]>({
      sql: LIST_LEASES,
      values: [resource, input.cursor ?? "0", String(limit + 1)],
      timeout: this.options.commandTimeoutMs,
    });
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return { leases: page.map(leaseFromRow), cursor: more ? (page.at(-1)?.id ?? null) : null };
  }

  async forceRelease(input: ForceReleaseInput): Promise<LeaseView | null> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const wanted = input.lockId === undefined ? undefined : validateLockId(input.lockId);
    const row = await this.readRow(key);
    if (!row || Number(row.live) !== 1 || (wanted !== undefined && row.lock_id !== wanted))
      return null;
    const [result] = await this.pool.execute<ResultSetHeader>({
      sql: FORCE_RELEASE,
      values: [key.resource, key.businessKey, row.lock_id],
      timeout: this.options.commandTimeoutMs,
    });
    if (rowsMatched(result) === 0) return null;
    const removed = leaseFromRow(row);
    this.emit({
      type: "force-release",
      ...this.base(key),
      lockId: removed.lockId,
      holder: removed.holder,
    });
    return removed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async update(
    operation: UncertainOperation,
    key: LockKey,
    lockId: string,
    sql: string,
    values: (string | number)[],
  ): Promise<boolean> {
    try {
      // A release racing a contended acquire of the same key can be picked as a deadlock
      // victim; InnoDB rolled it back whole, so it is retried like an acquire.
      const outcome = await retryDeadlocks(
        () =>
          this.pool.execute<ResultSetHeader>({
            sql,
            values,
            timeout: this.options.commandTimeoutMs,
          }),
        this.options.deadlockAttempts,
      );
      if (!outcome.ok) {
        throw new LockUnavailableError(`MySQL tier: ${operation} deadlocked on every attempt`);
      }
      return rowsMatched(outcome.value[0]) > 0;
    } catch (error) {
      throw await storeFailure(this.failureContext, operation, key, lockId, error);
    }
  }

  private async readRow(key: LockKey): Promise<LeaseRow | undefined> {
    const [rows] = await this.pool.execute<LeaseRow[]>({
      sql: READ_LEASE,
      values: [key.resource, key.businessKey],
      timeout: this.options.commandTimeoutMs,
    });
    return rows[0];
  }

  private async notHolder(key: LockKey, lockId: string): Promise<NotHolderError> {
    const row = await this.readRow(key);
    if (row && Number(row.live) === 1 && row.lock_id !== lockId) {
      return new NotHolderError(lockId, "other-holder");
    }
    this.emit({ type: "expired", ...this.base(key), lockId });
    return new NotHolderError(lockId, "expired");
  }

  private get failureContext(): FailureContext {
    return {
      pool: this.pool,
      timeoutMs: this.options.commandTimeoutMs,
      emit: (event) => this.emit(event),
    };
  }

  private base(key: LockKey) {
    return {
      resource: key.resource,
      businessKey: key.businessKey,
      tier: "mysql" as const,
      at: Date.now(),
    };
  }

  private emit(event: LockEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A sink must not throw (EventSink's contract); one that does must not break a lock.
    }
  }
}
