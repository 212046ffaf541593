import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import {
  FENCE_LAYOUT,
  LockUnavailableError,
  NotHolderError,
  OutcomeUnknownError,
  WardenError,
  newLockId,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  type LockKey,
  type UncertainOperation,
} from "@warden/contract";
import { validateWaiterId } from "../../store/fair-wait.js";
import {
  checkPermitRef,
  checkSemaphoreAcquire,
  holdsPermits,
  retryAfterMs,
  type CheckedSemaphoreAcquire,
  type PermitExtendInput,
  type PermitForceReleaseInput,
  type PermitRef,
  type PermitResult,
  type PermitView,
  type SemaphoreAcquireInput,
  type SemaphoreKeyPage,
  type SemaphoreListInput,
  type SemaphoreStore,
  type SemaphoreView,
} from "../../store/semaphore-store.js";
import { checkRwListByKey, pageByKey } from "../../store/rw-lock-store.js";
import { contended, isDeadlock, retryDeadlocks } from "../deadlock-retry.js";
import { certainlyNotApplied } from "../driver-errors.js";
import { MysqlStoreBase } from "../mysql-store-base.js";
import type { MysqlLockStoreOptions } from "../mysql-store-options.js";
import { COUNTER_HEADROOM } from "../sql/acquire-lock.js";
import {
  ANY_LIVE,
  COUNT_AHEAD,
  DEQUEUE,
  ENQUEUE,
  ENSURE_KEY,
  EXTEND_PERMIT,
  FORCE_RELEASE_ALL,
  FORCE_RELEASE_ONE,
  INSERT_PERMIT,
  LIST_KEYS,
  LIVE_PERMITS,
  LIVE_PERMITS_LOCKED,
  LOCK_KEY,
  PURGE_WAITERS,
  READ_GUARDS,
  READ_PERMIT,
  READ_TOTAL,
  RECLAIM_EXPIRED,
  RECORD_GRANT,
  RELEASE_PERMIT,
  REMOVE_UNCERTAIN,
} from "./semaphore-sql.js";

/** Options of {@link MysqlSemaphoreStore}: those of the MySQL lock store. */
export type MysqlSemaphoreStoreOptions = MysqlLockStoreOptions;

interface PermitRow extends RowDataPacket {
  lock_id: string;
  client_id: string;
  owner_id: string;
  permits: number | string;
  fence: string;
  renewals: number | string;
  granted_ms: number | string;
  expires_ms: number | string;
  ttl_ms: number | string;
}

interface GuardRow extends RowDataPacket {
  tier_epoch: string | null;
  tier_base: string | null;
  durable_epoch: string;
  next_counter: string | null;
  shared_tier: string | null;
}

/** One attempt's outcome inside the transaction. */
type Step =
  | { readonly kind: "answer"; readonly result: PermitResult }
  | { readonly kind: "renew-epoch"; readonly reason: string }
  /** The key's row went (the sweeper removed it as idle) between its creation and the lock. */
  | { readonly kind: "ensure-key" };

const MAX_STEPS = 3;

/**
 * The MySQL tier's semaphore (docs/decisions/0160): one `mysql_semaphore` row per key, one
 * `mysql_semaphore_permit` row per grant. An acquire is one transaction that locks the key's
 * row, deletes its expired grants, counts the live ones and grants or refuses; fences come
 * from the mutex's fence sequence and the tier's registered epochs (MysqlFenceEpochs), and
 * never go below the key's last fence.
 */
export class MysqlSemaphoreStore extends MysqlStoreBase implements SemaphoreStore {
  private constructor(pool: Pool, options: MysqlSemaphoreStoreOptions) {
    super(pool, options);
  }

  /** Opens the store's pool and checks that its tables answer. */
  static async open(options: MysqlSemaphoreStoreOptions): Promise<MysqlSemaphoreStore> {
    return new MysqlSemaphoreStore(
      await MysqlStoreBase.openPool(options, "mysql_semaphore_permit"),
      options,
    );
  }

  async acquire(input: SemaphoreAcquireInput): Promise<PermitResult> {
    const checked = checkSemaphoreAcquire(input);
    const lockId = newLockId();
    let last: Step["kind"] = "ensure-key";
    try {
      await this.epochs.ensureFloor();
      await this.ensureKey(checked);
      for (let step = 0; step < MAX_STEPS; step += 1) {
        const outcome = await retryDeadlocks(
          () => this.acquireOnce(checked, lockId),
          this.options.deadlockAttempts + 2,
        );
        if (!outcome.ok) throw contended("MySQL tier: the semaphore stayed contended");
        const next = outcome.value;
        last = next.kind;
        if (next.kind === "answer") return next.result;
        if (next.kind === "ensure-key") await this.ensureKey(checked);
        else await this.epochs.renew(next.reason);
      }
    } catch (error) {
      throw await this.failure("acquire", lockId, error);
    }
    // Every step renewed the tier's epoch and found the durable one moved on again: no fence
    // may be minted yet, as the mutex says in the same case. Otherwise the key's row kept
    // disappearing between steps (the sweeper removed it as idle).
    if (last === "renew-epoch") {
      throw new LockUnavailableError("the MySQL tier could not settle on a fencing epoch", {
        reason: "fencing-epoch",
      });
    }
    throw new LockUnavailableError("the MySQL tier could not keep the semaphore key's row");
  }

  async release(input: PermitRef): Promise<PermitView> {
    const { key, lockId } = checkPermitRef(input);
    const rows = await this.run<PermitRow[]>("release", lockId, RELEASE_PERMIT, [
      lockId,
      key.resource,
      key.businessKey,
    ]);
    const row = rows[0];
    if (!row) throw new NotHolderError(lockId, "expired");
    return permitFromRow(key, row);
  }

  async extend(input: PermitExtendInput): Promise<PermitView> {
    const { key, lockId } = checkPermitRef(input);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const [updated, rows] = (await this.run<RowDataPacket[][]>("extend", lockId, EXTEND_PERMIT, [
      leaseMs,
      lockId,
      key.resource,
      key.businessKey,
      lockId,
    ])) as unknown as [ResultSetHeader, PermitRow[]];
    const row = rows[0];
    if (updated.affectedRows === 0 || !row) throw new NotHolderError(lockId, "expired");
    return permitFromRow(key, row);
  }

  async inspect(input: LockKey): Promise<SemaphoreView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const [[rows], [totals]] = await Promise.all([
      this.pool.query<PermitRow[]>({
        sql: LIVE_PERMITS,
        values: [key.resource, key.businessKey],
        timeout: this.options.commandTimeoutMs,
      }),
      this.pool.query<RowDataPacket[]>({
        sql: READ_TOTAL,
        values: [key.resource, key.businessKey],
        timeout: this.options.commandTimeoutMs,
      }),
    ]);
    const holders = rows.map((row) => permitFromRow(key, row));
    const total = totals[0]?.total_permits as number | string | undefined;
    return {
      ...key,
      holders,
      inUse: holders.reduce((sum, grant) => sum + grant.permits, 0),
      totalPermits: total === undefined ? null : Number(total),
      tier: "mysql",
    };
  }

  async forceRelease(input: PermitForceReleaseInput): Promise<PermitView[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = input.lockId === undefined ? undefined : validateLockId(input.lockId);
    const rows = await this.run<PermitRow[]>(
      "release",
      lockId ?? "",
      lockId === undefined ? FORCE_RELEASE_ALL : FORCE_RELEASE_ONE,
      lockId === undefined
        ? [key.resource, key.businessKey]
        : [key.resource, key.businessKey, lockId],
    );
    return rows.map((row) => permitFromRow(key, row));
  }

  async leaveQueue(input: LockKey & { readonly waiterId: string }): Promise<boolean> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const waiterId = validateWaiterId(input.waiterId);
    const [result] = await this.pool.query<ResultSetHeader>({
      sql: DEQUEUE,
      values: [key.resource, key.businessKey, waiterId],
      timeout: this.options.commandTimeoutMs,
    });
    return result.affectedRows > 0;
  }

  /** The resource's keys with a live grant, in key order, `limit` keys a page. */
  async list(input: SemaphoreListInput): Promise<SemaphoreKeyPage> {
    const { resource, after, limit } = checkRwListByKey(input);
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: LIST_KEYS,
      values: [resource, after ?? "", limit + 1],
      timeout: this.options.commandTimeoutMs,
    });
    const businessKeys = rows.map((row) => String(row["business_key"]));
    return pageByKey(resource, businessKeys, limit, (key) => this.inspect(key), holdsPermits);
  }

  /** True when any semaphore grant of this tier is still live (the tier wrapper's drain). */
  async hasLivePermits(): Promise<boolean> {
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: ANY_LIVE,
      timeout: this.options.commandTimeoutMs,
    });
    return rows.length > 0;
  }

  /**
   * Creates the key's row if missing, in its own autocommit statement (no gap locks inside
   * the acquire's transaction).
   */
  private async ensureKey(checked: CheckedSemaphoreAcquire): Promise<void> {
    await this.pool.query({
      sql: ENSURE_KEY,
      values: [checked.key.resource, checked.key.businessKey, checked.totalPermits],
      timeout: this.options.commandTimeoutMs,
    });
  }

  /** One transaction: lock the key, reclaim, count, queue, decide, grant. */
  private async acquireOnce(checked: CheckedSemaphoreAcquire, lockId: string): Promise<Step> {
    const { key, holder, leaseMs, permits, totalPermits, fair, heldElsewhere } = checked;
    const conn = await this.pool.getConnection();
    const q = <T extends RowDataPacket[] | ResultSetHeader>(
      sql: string,
      values: (string | number)[] = [],
    ) => conn.query<T>({ sql, values, timeout: this.options.commandTimeoutMs });
    let open = false;
    let committing = false;
    try {
      await q("START TRANSACTION");
      open = true;
      const [locked] = await q<RowDataPacket[]>(LOCK_KEY, [key.resource, key.businessKey]);
      if (!locked[0]) {
        await q("ROLLBACK");
        open = false;
        return { kind: "ensure-key" };
      }
      const [guards] = await q<GuardRow[]>(READ_GUARDS);
      const guard = guards[0];
      if (guard?.shared_tier && guard.shared_tier !== "mysql") {
        throw new LockUnavailableError(
          `the fleet's tier is now ${guard.shared_tier}; the MySQL tier no longer grants`,
          { reason: "tier-change" },
        );
      }
      const tierEpoch = Number(guard?.tier_epoch ?? 0);
      if (tierEpoch === 0 || tierEpoch < Number(guard?.durable_epoch ?? 0)) {
        await q("ROLLBACK");
        open = false;
        return {
          kind: "renew-epoch",
          reason: tierEpoch === 0 ? "first epoch" : "durable epoch moved on",
        };
      }
      const base = Number(guard?.tier_base ?? 0);
      if (Number(guard?.next_counter ?? 0) - base > FENCE_LAYOUT.maxCounter - COUNTER_HEADROOM) {
        await q("ROLLBACK");
        open = false;
        return { kind: "renew-epoch", reason: "fence counter exhausted" };
      }
      await q(RECLAIM_EXPIRED, [key.resource, key.businessKey]);
      const [live] = await q<PermitRow[]>(LIVE_PERMITS_LOCKED, [key.resource, key.businessKey]);
      const inUse = live.reduce((sum, row) => sum + Number(row.permits), 0);
      let ahead = 0;
      if (fair) {
        await q(PURGE_WAITERS, [key.resource, key.businessKey]);
        if (fair.waiterId !== null) {
          await q(ENQUEUE, [key.resource, key.businessKey, fair.waiterId, fair.heartbeatMs]);
        }
        const [counted] = await q<RowDataPacket[]>(COUNT_AHEAD, [
          key.resource,
          key.businessKey,
          key.resource,
          key.businessKey,
          fair.waiterId ?? "",
        ]);
        ahead = Number(counted[0]?.ahead ?? 0);
      }
      const needed = inUse + heldElsewhere + permits - totalPermits;
      if (needed > 0 || ahead > 0) {
        committing = true;
        await q("COMMIT");
        open = false;
        const grants = live.map((row) => ({
          permits: Number(row.permits),
          ttlMs: Number(row.ttl_ms),
        }));
        return {
          kind: "answer",
          result: {
            granted: false,
            inUse,
            totalPermits,
            queued: needed <= 0,
            retryAfterMs: needed > 0 ? retryAfterMs(grants, needed) : 0,
            tier: "mysql",
          },
        };
      }
      await q(INSERT_PERMIT, [
        key.resource,
        key.businessKey,
        lockId,
        holder.clientId,
        holder.ownerId,
        permits,
        tierEpoch * FENCE_LAYOUT.counterSpan,
        base,
        leaseMs,
        key.resource,
        key.businessKey,
      ]);
      await q(RECORD_GRANT, [lockId, totalPermits, key.resource, key.businessKey]);
      if (fair?.waiterId) await q(DEQUEUE, [key.resource, key.businessKey, fair.waiterId]);
      const [mine] = await q<PermitRow[]>(READ_PERMIT, [lockId]);
      committing = true;
      await q("COMMIT");
      open = false;
      const row = mine[0];
      if (!row) throw new OutcomeUnknownError(lockId, "acquire");
      return {
        kind: "answer",
        result: {
          ...permitFromRow(key, row),
          granted: true,
          inUse: inUse + permits,
          totalPermits,
        },
      };
    } catch (error) {
      if (open && !committing) await q("ROLLBACK").catch(() => undefined);
      if (committing && !isDeadlock(error) && !certainlyNotApplied(error)) {
        // A COMMIT without a reply may have granted: remove the grant by its lockId.
        await this.removeUncertain(lockId);
        throw new OutcomeUnknownError(lockId, "acquire", { cause: error });
      }
      throw error;
    } finally {
      conn.release();
    }
  }

  /** Runs one statement, retrying deadlocks; failures become typed errors. */
  private async run<T>(
    operation: UncertainOperation,
    lockId: string,
    sql: string,
    values: (string | number)[],
  ): Promise<T> {
    try {
      const outcome = await retryDeadlocks(
        () =>
          this.pool.query<RowDataPacket[]>({ sql, values, timeout: this.options.commandTimeoutMs }),
        this.options.deadlockAttempts,
      );
      if (!outcome.ok) throw contended(`MySQL tier: ${operation} deadlocked on every attempt`);
      return outcome.value[0] as unknown as T;
    } catch (error) {
      throw await this.failure(operation, lockId, error);
    }
  }

  private async failure(
    operation: UncertainOperation,
    lockId: string,
    error: unknown,
  ): Promise<Error> {
    if (error instanceof WardenError) return error;
    if (certainlyNotApplied(error)) {
      return new LockUnavailableError(`MySQL tier: semaphore ${operation} failed`, {
        cause: error,
      });
    }
    if (operation === "acquire") await this.removeUncertain(lockId);
    return new OutcomeUnknownError(lockId, operation, { cause: error });
  }

  private async removeUncertain(lockId: string): Promise<void> {
    await this.pool
      .query({ sql: REMOVE_UNCERTAIN, values: [lockId], timeout: this.options.commandTimeoutMs })
      .catch(() => undefined);
  }
}

function permitFromRow(key: LockKey, row: PermitRow): PermitView {
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId: row.lock_id,
    fence: row.fence,
    holder: { clientId: row.client_id, ownerId: row.owner_id },
    permits: Number(row.permits),
    grantedAt: Number(row.granted_ms),
    renewals: Number(row.renewals),
    expiresAt: Number(row.expires_ms),
    ttlMs: Number(row.ttl_ms),
    tier: "mysql",
  };
}
