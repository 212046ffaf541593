import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { NotHolderError, type LockKey, type UncertainOperation } from "@warden/contract";
import type { StoreEventEmitter } from "../../events/event-emitter.js";
import { contended, retryDeadlocks } from "../deadlock-retry.js";
import type { LeaseRow } from "../lease-row.js";
import type { MysqlFenceEpochs } from "../mysql-fence-epochs.js";
import { rowsMatched } from "../rows-matched.js";
import { READ_LEASE } from "../sql/read-lease.js";
import { storeFailure } from "../store-failure.js";

/** What every MySQL store operation (one file each in this folder) works with. */
export interface MysqlOpContext {
  readonly pool: Pool;
  readonly timeoutMs: number;
  readonly deadlockAttempts: number;
  readonly events: StoreEventEmitter;
  readonly epochs: MysqlFenceEpochs;
}

/** What an UPDATE-then-report round trip answered: did the UPDATE match, and the report's row. */
export interface UpdateReply<Row> {
  readonly matched: boolean;
  readonly row: Row | undefined;
}

/**
 * Runs an UPDATE and the SELECT that reports it in one round trip (docs/decisions/0007),
 * retrying deadlocks; failures become typed errors.
 */
export async function updateAndReport<Row extends RowDataPacket>(
  ctx: MysqlOpContext,
  operation: UncertainOperation,
  key: LockKey,
  lockId: string,
  sql: string,
  values: (string | number)[],
): Promise<UpdateReply<Row>> {
  try {
    // A release racing a contended acquire of the same key can be picked as a deadlock
    // victim; InnoDB rolled it back whole, so it is retried like an acquire.
    const outcome = await retryDeadlocks(
      () => ctx.pool.query<RowDataPacket[][]>({ sql, values, timeout: ctx.timeoutMs }),
      ctx.deadlockAttempts,
    );
    if (!outcome.ok) {
      throw contended(`MySQL tier: ${operation} deadlocked on every attempt`);
    }
    // A multi-statement reply: the UPDATE's header, then the SELECT's rows.
    const [updated, rows] = outcome.value[0] as unknown as [ResultSetHeader, Row[]];
    return { matched: rowsMatched(updated) > 0, row: rows[0] };
  } catch (error) {
    throw await storeFailure(ctx, operation, key, lockId, error);
  }
}

/** The key's row, live or not, for reporting only. */
export async function readRow(ctx: MysqlOpContext, key: LockKey): Promise<LeaseRow | undefined> {
  const [rows] = await ctx.pool.execute<LeaseRow[]>({
    sql: READ_LEASE,
    values: [key.resource, key.businessKey],
    timeout: ctx.timeoutMs,
  });
  return rows[0];
}

/** The error for a lockId that does not hold the key; `liveLockId` holds it now, if any. */
export function notHolder(
  ctx: MysqlOpContext,
  key: LockKey,
  lockId: string,
  liveLockId: string | null,
): NotHolderError {
  if (liveLockId !== null && liveLockId !== lockId) {
    return new NotHolderError(lockId, "other-holder");
  }
  ctx.events.lock(key, { type: "expired", lockId });
  return new NotHolderError(lockId, "expired");
}
