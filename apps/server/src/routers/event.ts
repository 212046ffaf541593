import { TRPCError } from "@trpc/server";
import { likePrefix, resourcePrefixOf } from "../auth/resource-prefix.js";
import { eventSearchInputSchema } from "../schemas/admin.js";
import { authedProcedure, router } from "../trpc.js";

// Cursor: `<at ms>_<id>` of the last row of the previous page (newest first). Ids of the
// events read from a hold's row carry a suffix (`-r` renewal, `-e` end).
function parseCursor(cursor: string): { at: Date; id: string } {
  const match = /^(\d{1,15})_([A-Za-z0-9_-]{1,40})$/.exec(cursor);
  const at = match ? new Date(Number(match[1])) : null;
  if (!match || at === null || Number.isNaN(at.getTime()) || at.getUTCFullYear() > 9999)
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: "cursor: not a cursor from a previous page",
    });
  return { at, id: match[2]! };
}

type SearchInput = ReturnType<(typeof eventSearchInputSchema)["parse"]>;

interface Branch {
  /** Column expressions in the order of {@link COLUMNS}. */
  readonly select: string;
  readonly from: string;
  /** The branch's time and id columns (what a cursor and time filters compare). */
  readonly at: string;
  readonly id: string;
  readonly where: readonly string[];
  readonly params: readonly unknown[];
}

const EVENT_COLUMNS =
  "id, type, tenant_id, resource, business_key, lock_id, fence, client_id, owner_id, tier, lease_ms, actor, reason, at, count";
const COLUMNS = `${EVENT_COLUMNS}, granted_at`;

// A hold row is a mutex hold (`kind` NULL), a semaphore permit grant (`kind` 'semaphore',
// docs/decisions/0196) or a read-write lock's grant (`kind` 'read' or 'write',
// docs/decisions/0199). The steps of the others are named as the live feed names them:
// `permit-grant`, `permit-release`, `permit-force-release`, `permit-expired`, and the same
// with `rwlock-`.
const MUTEX = "kind IS NULL";
const PERMIT = "kind = 'semaphore'";
const RW = "kind IN ('read', 'write')";
const PREFIX =
  "CASE kind WHEN 'semaphore' THEN 'permit-' WHEN 'read' THEN 'rwlock-' WHEN 'write' THEN 'rwlock-' ELSE '' END";

/** The step of a hold row that an event type filter asks for, and of which kind of hold. */
interface HoldStep {
  readonly branch: "grant" | "extend" | "end";
  readonly kind: typeof MUTEX | typeof PERMIT | typeof RW;
  /** `end_type`s of an end. */
  readonly ends?: readonly string[];
}

const HOLD_STEPS: Readonly<Record<string, HoldStep>> = {
  grant: { branch: "grant", kind: MUTEX },
  extend: { branch: "extend", kind: MUTEX },
  release: { branch: "end", kind: MUTEX, ends: ["released"] },
  "force-release": { branch: "end", kind: MUTEX, ends: ["force-released"] },
  expired: { branch: "end", kind: MUTEX, ends: ["expired", "lapsed"] },
  "permit-grant": { branch: "grant", kind: PERMIT },
  "permit-release": { branch: "end", kind: PERMIT, ends: ["released"] },
  "permit-force-release": { branch: "end", kind: PERMIT, ends: ["force-released"] },
  "permit-expired": { branch: "end", kind: PERMIT, ends: ["expired", "lapsed"] },
  "rwlock-grant": { branch: "grant", kind: RW },
  "rwlock-release": { branch: "end", kind: RW, ends: ["released"] },
  "rwlock-force-release": { branch: "end", kind: RW, ends: ["force-released"] },
  "rwlock-expired": { branch: "end", kind: RW, ends: ["expired", "lapsed"] },
};

// What the grant and end branches say in `reason`, per kind of hold. A permit's reasons
// are those its event rows had (decision 0196); a read or write grant's start with its mode,
// as its event rows' did (the console reads the mode there), decision 0199.
const GRANT_REASON =
  "CASE WHEN kind IS NULL THEN IF(reentries > 1, CONCAT('re-entered ', reentries, ' times'), NULL) " +
  "WHEN kind = 'semaphore' THEN CONCAT('permits ', permits) " +
  "ELSE IF(reentries > 1, CONCAT(kind, ' (re-entered ', reentries, ' times)'), kind) END";
const END_REASON =
  "CASE WHEN kind IS NULL THEN IF(end_type = 'lapsed', 'lapsed: no release before the lease ran out', reason) " +
  "WHEN kind = 'semaphore' THEN CASE end_type WHEN 'lapsed' THEN CONCAT('lapsed: ', IFNULL(CONCAT('permits ', permits, ', '), ''), " +
  "'no release or renewal before the lease ran out') " +
  "WHEN 'released' THEN CONCAT('permits ', permits) ELSE reason END " +
  "ELSE CASE end_type WHEN 'lapsed' THEN CONCAT(kind, ': lapsed, no release or renewal before the lease ran out') " +
  "WHEN 'released' THEN kind ELSE reason END END";

interface EventRow {
  id: string;
  type: string;
  tenant_id: string | null;
  resource: string;
  business_key: string | null;
  lock_id: string | null;
  fence: bigint | number | string | null;
  client_id: string | null;
  owner_id: string | null;
  tier: string | null;
  lease_ms: number | bigint | null;
  actor: string | null;
  reason: string | null;
  at: Date | string;
  count: number | bigint | null;
  granted_at: Date | string | null;
}

/**
 * The branches of the search: single events (`lock_event`) and the grant, latest renewal
 * and end read from each hold's row (`lock_hold`, docs/decisions/0070), each filtered and
 * limited on its own indexes before they are merged newest first. A permit grant's row
 * (decision 0196) reads as its `permit-grant` and its end, a read or write grant's
 * (decision 0199) as its `rwlock-grant` and its end; their renewals are not events, as
 * before, so the renewal branch reads mutex holds only.
 */
function branchesOf(
  input: SearchInput,
  tenantId: string | null,
  resourceLike: string | null,
): Branch[] {
  const type = input.type;
  const branches: Branch[] = [];
  const common = (where: string[], params: unknown[]) => {
    const add = (sql: string, value: unknown) => {
      where.push(sql);
      params.push(value);
    };
    if (tenantId !== null) add("tenant_id = ?", tenantId);
    if (resourceLike !== null) add("resource LIKE ?", resourceLike);
    if (input.fence !== undefined) add("fence = ?", BigInt(input.fence));
    if (input.lockId !== undefined) add("lock_id = ?", input.lockId);
    if (input.clientId !== undefined) add("client_id = ?", input.clientId);
    if (input.ownerId !== undefined) add("owner_id = ?", input.ownerId);
    if (input.businessKey !== undefined) add("business_key = ?", input.businessKey);
    if (input.resource !== undefined) add("resource = ?", input.resource);
  };
  {
    const where: string[] = [];
    const params: unknown[] = [];
    common(where, params);
    if (type !== undefined) {
      where.push("type = ?");
      params.push(type);
    }
    branches.push({
      select: `${EVENT_COLUMNS}, NULL AS granted_at`,
      from: "lock_event",
      at: "at",
      id: "id",
      where,
      params,
    });
  }
  const hold = (
    select: string,
    at: string,
    id: string,
    extra: readonly string[],
    extraParams: readonly unknown[] = [],
  ) => {
    const where: string[] = [`${at} IS NOT NULL`, ...extra];
    const params: unknown[] = [...extraParams];
    common(where, params);
    branches.push({ select, from: "lock_hold", at, id, where, params });
  };
  const holdColumns = (
    id: string,
    typeSql: string,
    leaseMs: string,
    actor: string,
    reason: string,
    at: string,
    count: string,
  ) =>
    `${id} AS id, ${typeSql} AS type, tenant_id, resource, business_key, lock_id, fence, ` +
    `client_id, owner_id, tier, ${leaseMs} AS lease_ms, ${actor} AS actor, ${reason} AS reason, ` +
    `${at} AS at, ${count} AS count, granted_at`;
  const step = type === undefined ? undefined : HOLD_STEPS[type];
  // A type filter that names no step of a hold reads no hold row; one that does reads that
  // step of its kind of hold only.
  if (type !== undefined && step === undefined) return branches;
  const kind = step === undefined ? [] : [step.kind];
  if (step === undefined || step.branch === "grant") {
    hold(
      holdColumns(
        "id",
        `CONCAT(${PREFIX}, 'grant')`,
        "lease_ms",
        "NULL",
        GRANT_REASON,
        "granted_at",
        "NULL",
      ),
      "granted_at",
      "id",
      kind,
    );
  }
  if (step === undefined || step.branch === "extend") {
    hold(
      holdColumns(
        "CONCAT(id, '-r')",
        "'extend'",
        "renew_lease_ms",
        "NULL",
        "CONCAT('latest of ', renewals, ' renewals')",
        "renewed_at",
        "renewals",
      ),
      "renewed_at",
      "CONCAT(id, '-r')",
      [MUTEX],
    );
  }
  if (step === undefined || step.branch === "end") {
    const ends = step?.ends ?? [];
    hold(
      holdColumns(
        "CONCAT(id, '-e')",
        `CONCAT(${PREFIX}, CASE end_type WHEN 'released' THEN 'release' WHEN 'force-released' THEN 'force-release' ELSE 'expired' END)`,
        "NULL",
        "actor",
        END_REASON,
        "ended_at",
        "NULL",
      ),
      "ended_at",
      "CONCAT(id, '-e')",
      ends.length === 0 ? kind : [...kind, `end_type IN (${ends.map(() => "?").join(", ")})`],
      ends,
    );
  }
  return branches;
}

/**
 * The audit trail. A tenant key sees its own tenant's events only, and a key limited to a
 * resource prefix only the events of resources under it (docs/decisions/0100).
 */
export const eventRouter = router({
  /**
   * Events matching every given filter, newest first, paged. Fences are decimal strings.
   * `count` is set on per-minute refusal counts (and on a renewal: the hold's renewals).
   */
  search: authedProcedure.input(eventSearchInputSchema).query(async ({ ctx, input }) => {
    const limit = input.limit ?? 100;
    const after = input.cursor === undefined ? null : parseCursor(input.cursor);
    const tenantId = ctx.principal.kind === "tenant" ? ctx.principal.tenantId : null;
    // Tenant-wide events (resource `*`, e.g. local-mode) do not match a prefix either.
    const prefix = resourcePrefixOf(ctx.principal);
    const parts: string[] = [];
    const params: unknown[] = [];
    for (const branch of branchesOf(input, tenantId, prefix === null ? null : likePrefix(prefix))) {
      const where = [...branch.where];
      const branchParams = [...branch.params];
      if (input.fromMs !== undefined) {
        where.push(`${branch.at} >= ?`);
        branchParams.push(new Date(input.fromMs));
      }
      if (input.toMs !== undefined) {
        where.push(`${branch.at} <= ?`);
        branchParams.push(new Date(input.toMs));
      }
      if (after !== null) {
        where.push(`(${branch.at} < ? OR (${branch.at} = ? AND ${branch.id} < ?))`);
        branchParams.push(after.at, after.at, after.id);
      }
      parts.push(
        `(SELECT ${branch.select} FROM ${branch.from}` +
          (where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`) +
          ` ORDER BY ${branch.at} DESC, ${branch.id} DESC LIMIT ${limit + 1})`,
      );
      params.push(...branchParams);
    }
    const sql =
      parts.length === 1
        ? parts[0]!
        : `SELECT ${COLUMNS} FROM (${parts.join(" UNION ALL ")}) AS e ORDER BY at DESC, id DESC LIMIT ${limit + 1}`;
    const rows = await ctx.services.prisma.$queryRawUnsafe<EventRow[]>(sql, ...params);
    const page = rows.slice(0, limit).map((row) => ({
      id: row.id,
      type: row.type,
      tenantId: row.tenant_id,
      resource: row.resource,
      businessKey: row.business_key,
      lockId: row.lock_id,
      fence: row.fence === null ? null : String(row.fence),
      clientId: row.client_id,
      ownerId: row.owner_id,
      tier: row.tier,
      leaseMs: row.lease_ms === null ? null : Number(row.lease_ms),
      actor: row.actor,
      reason: row.reason,
      at: new Date(row.at).getTime(),
      count: row.count === null ? null : Number(row.count),
      /** When the hold the event belongs to was granted (ms); null for other events. */
      grantedAt: row.granted_at === null ? null : new Date(row.granted_at).getTime(),
    }));
    const last = page.at(-1);
    return {
      events: page,
      cursor: rows.length > limit && last ? `${last.at}_${last.id}` : null,
    };
  }),
});
