import type { RowDataPacket } from "mysql2/promise";
import { validateLockKey, type LockKey } from "@warden/contract";
import type { LockDelayView } from "../../store/lock-store.js";
import { READ_LOCK_DELAY } from "../sql/read-lease.js";
import type { MysqlOpContext } from "./mysql-op-context.js";

interface DelayRow extends RowDataPacket {
  delay_left_ms: string | number;
  delay_until_ms: string | number;
}

/** LockStore.inspectDelay on MySQL: the key's lock-delay in force, when it has no live lease. */
export async function inspectDelayOp(
  ctx: MysqlOpContext,
  input: LockKey,
): Promise<LockDelayView | null> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const [rows] = await ctx.pool.execute<DelayRow[]>({
    sql: READ_LOCK_DELAY,
    values: [key.resource, key.businessKey],
    timeout: ctx.timeoutMs,
  });
  const row = rows[0];
  const remainingMs = Number(row?.delay_left_ms ?? 0);
  if (!row || remainingMs <= 0) return null;
  return {
    ...key,
    lockDelayUntil: Number(row.delay_until_ms),
    remainingMs,
    tier: "mysql",
  };
}
