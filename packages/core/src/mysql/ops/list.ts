import { InvalidArgumentError, validatePageSize, validateResource } from "@warden/contract";
import type { LeasePage, ListInput } from "../../store/lock-store.js";
import { leaseFromRow, type LeaseRow } from "../lease-row.js";
import { LIST_LEASES } from "../sql/list-leases.js";
import type { MysqlOpContext } from "./mysql-op-context.js";

const CURSOR_PATTERN = /^[1-9][0-9]{0,19}$/;

/** LockStore.list on MySQL: live leases of a resource in id order, paged by id. */
export async function listOp(ctx: MysqlOpContext, input: ListInput): Promise<LeasePage> {
  const resource = validateResource(input.resource);
  const limit = validatePageSize(input.limit);
  if (input.cursor !== undefined && !CURSOR_PATTERN.test(input.cursor)) {
    throw new InvalidArgumentError("cursor", "must be a cursor returned by list()");
  }
  const [rows] = await ctx.pool.execute<LeaseRow[]>({
    sql: LIST_LEASES,
    values: [resource, input.cursor ?? "0", String(limit + 1)],
    timeout: ctx.timeoutMs,
  });
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return { leases: page.map(leaseFromRow), cursor: more ? (page.at(-1)?.id ?? null) : null };
}
