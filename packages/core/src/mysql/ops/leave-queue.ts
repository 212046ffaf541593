import type { ResultSetHeader } from "mysql2/promise";
import { LockUnavailableError, validateLockKey } from "@warden/contract";
import { validateWaiterId } from "../../store/fair-wait.js";
import type { LeaveQueueInput } from "../../store/lock-store.js";
import { LEAVE_QUEUE } from "../sql/waiters.js";
import type { MysqlOpContext } from "./mysql-op-context.js";

/** LockStore.leaveQueue on MySQL: deletes the waiter's row. */
export async function leaveQueueOp(ctx: MysqlOpContext, input: LeaveQueueInput): Promise<boolean> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const waiterId = validateWaiterId(input.waiterId);
  try {
    const [result] = await ctx.pool.execute<ResultSetHeader>({
      sql: LEAVE_QUEUE,
      values: [key.resource, key.businessKey, waiterId],
      timeout: ctx.timeoutMs,
    });
    return result.affectedRows > 0;
  } catch (cause) {
    // Leaving is idempotent: a caller may simply try again.
    throw new LockUnavailableError("MySQL tier: leaving the queue failed", { cause });
  }
}
