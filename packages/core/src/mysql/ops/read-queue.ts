import type { RowDataPacket } from "mysql2/promise";
import { LockUnavailableError, validateLockKey } from "@warden/contract";
import {
  validateQueueLimit,
  type QueuePlace,
  type ReadQueueInput,
} from "../../store/queue-place.js";
import { READ_QUEUE } from "../sql/waiters.js";
import type { MysqlOpContext } from "./mysql-op-context.js";

interface PlaceRow extends RowDataPacket {
  readonly waiter_id: string;
  readonly arrival: string;
  readonly deadline_ms: number | string;
  readonly ttl_ms: number | string;
}

/** LockStore.readQueue on MySQL: the key's live waiter rows in id (arrival) order. */
export async function readQueueOp(
  ctx: MysqlOpContext,
  input: ReadQueueInput,
): Promise<QueuePlace[]> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const limit = validateQueueLimit(input.limit);
  try {
    const [rows] = await ctx.pool.execute<PlaceRow[]>({
      sql: READ_QUEUE,
      values: [key.resource, key.businessKey, String(limit)],
      timeout: ctx.timeoutMs,
    });
    return rows.map((row) => ({
      waiterId: row.waiter_id,
      arrival: Number(row.arrival),
      deadline: Number(row.deadline_ms),
      // A place that lapses within the statement's millisecond is still live to it.
      ttlMs: Math.max(1, Number(row.ttl_ms)),
    }));
  } catch (cause) {
    throw new LockUnavailableError("MySQL tier: reading the queue failed", { cause });
  }
}
