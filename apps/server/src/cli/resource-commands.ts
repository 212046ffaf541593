import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { InvalidArgumentError } from "@warden/contract";
import type { PrismaClient } from "@warden/db";
import type { Pool, RowDataPacket } from "mysql2/promise";
import type { ZodError } from "zod";
import { auditRecord, type AuditRecord } from "../audit/audit-record.js";
import { insertAuditBatch } from "../audit/audit-insert.js";
import type { OperatorPrincipal } from "../auth/principal.js";
import { ConflictError } from "../errors/conflict-error.js";
import { policyDiff } from "../registry/policy-diff.js";
import type { PolicyChangeListener, ResourceRegistry } from "../registry/resource-registry.js";
import type { ResourceView } from "../registry/resource-view.js";
import {
  RESOURCE_POLICY_DEFAULTS,
  resourceCreateSchema,
  resourceUpdateSchema,
} from "../schemas/resource-policy.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { POLICY_OPTIONS, policyFromFlags } from "./policy-flags.js";

/** What the resource commands work on: the database, as the server sees it. */
export interface ResourceCommandDeps {
  readonly prisma: PrismaClient;
  readonly pool: Pool;
  readonly registry: ResourceRegistry;
}

// The CLI acts as an admin operator named after the shell user; the audit trail says so.
function cliPrincipal(): OperatorPrincipal {
  return { kind: "operator", operatorId: 0, username: `cli:${shellUser()}`, role: "admin" };
}

function shellUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}

/**
 * `resource create|update|retire|list`: the same schema checks as the API's `resource.*`
 * procedures, the same registry (tenant checks, name conflicts, live-lock refusal), and the
 * same `policy` audit event with the before/after of every changed field.
 */
export async function runResourceCommand(
  verb: string | undefined,
  args: string[],
  deps: ResourceCommandDeps,
  io: CliIo,
): Promise<number> {
  const principal = cliPrincipal();
  const audited: AuditRecord[] = [];
  const audit: PolicyChangeListener = (before, after) =>
    audited.push(
      auditRecord({
        type: "policy",
        tenantId: after.tenantId,
        resource: after.name,
        actor: `cli:${shellUser()}`.slice(0, 128),
        reason: policyDiff(before, after),
        at: Date.now(),
      }),
    );
  const writeAudit = async () => {
    if (audited.length > 0) await insertAuditBatch(deps.pool, audited);
  };

  if (verb === "create") {
    const { values, positionals } = parse(args, POLICY_OPTIONS, 2);
    const [tenantId, name] = positionals as [string, string];
    const input = checked(
      resourceCreateSchema.safeParse({
        ...RESOURCE_POLICY_DEFAULTS,
        ...policyFromFlags(values),
        name,
        tenantId,
      }),
    );
    const view = await deps.registry.create(principal, input, audit);
    await writeAudit();
    io.out(`resource ${view.name} created for tenant ${view.tenantId}: ${describe(view)}`);
    return 0;
  }
  if (verb === "update") {
    const { values, positionals } = parse(args, POLICY_OPTIONS, 1);
    const patch = policyFromFlags(values);
    if (Object.keys(patch).length === 0) {
      throw new UsageError("resource update: give at least one policy flag to change");
    }
    const input = checked(resourceUpdateSchema.safeParse({ name: positionals[0], patch }));
    const view = await deps.registry.update(principal, input.name, input.patch, audit);
    await writeAudit();
    io.out(`resource ${view.name} updated: ${describe(view)}`);
    return 0;
  }
  if (verb === "retire") {
    const { positionals } = parse(args, {}, 1);
    const name = positionals[0]!;
    const current = await deps.registry.get(name, principal);
    const view = await deps.registry.retire(
      principal,
      name,
      () => hasLiveHolds(deps.pool, current),
      audit,
    );
    await writeAudit();
    io.out(`resource ${view.name} retired`);
    return 0;
  }
  if (verb === "list") {
    const { values } = parse(
      args,
      { tenant: { type: "string" }, all: { type: "boolean" } } as const,
      0,
    );
    let cursor: string | undefined;
    let shown = 0;
    do {
      const page = await deps.registry.list(principal, {
        ...(typeof values.tenant === "string" ? { tenantId: values.tenant } : {}),
        includeRetired: values.all === true,
        limit: 500,
        ...(cursor ? { cursor } : {}),
      });
      for (const view of page.resources) {
        io.out(
          `${view.name}\t${view.tenantId}\t${view.retiredAt === null ? "live" : "retired"}\t${describe(view)}`,
        );
        shown += 1;
      }
      cursor = page.cursor ?? undefined;
    } while (cursor);
    if (shown === 0) io.err("no resources");
    return 0;
  }
  throw new UsageError(`unknown command: resource ${verb ?? ""}`.trim());
}

// The database's tables of live holds, by resource kind: the MySQL tier's own, and for a
// mutex the mirror of the Redis leases the servers write.
const HOLD_TABLES: Record<ResourceView["kind"], readonly string[]> = {
  mutex: ["mysql_lock", "redis_lease_mirror"],
  semaphore: ["mysql_semaphore_permit"],
  rwlock: ["mysql_rw_grant"],
};

/**
 * Whether any holder of `resource` may still be live, as the database sees it, by the
 * resource's kind (docs/decisions/0194): a live mutex lease on the MySQL tier or in the
 * Redis lease mirror (written in batches, so a Redis grant of the last moment may not be
 * there yet: retire through the API or the console while the fleet is busy); a live permit
 * grant or read-write grant on the MySQL tier. The Redis tier's permit and read-write grants
 * have no mirror in the database, so this CLI (no Redis) cannot tell that a semaphore or a
 * read-write lock is free: it refuses, naming `resource.retire`, which asks every tier.
 */
async function hasLiveHolds(pool: Pool, resource: ResourceView): Promise<boolean> {
  for (const table of HOLD_TABLES[resource.kind]) {
    const [rows] = await pool.query<RowDataPacket[]>(
      `SELECT 1 FROM ${table} WHERE resource = ? AND expires_at > NOW(3) LIMIT 1`,
      [resource.name],
    );
    if (rows.length > 0) return true;
  }
  if (resource.kind !== "mutex") {
    throw new ConflictError(
      `resource "${resource.name}" is a ${resource.kind}: its Redis ${
        resource.kind === "semaphore" ? "permit grants" : "read and write grants"
      } are not in the database, so warden-admin cannot see whether any is live; retire it through the API (resource.retire) or the console, which check every tier`,
    );
  }
  return false;
}

type OptionsConfig = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>;

function parse(
  args: string[],
  options: OptionsConfig,
  positionalCount: number,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length !== positionalCount) {
    throw new UsageError(
      `expected ${positionalCount} argument(s), got ${parsed.positionals.length}`,
    );
  }
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

/** The API schema's verdict: the first problem, naming the field and the allowed range. */
function checked<T>(result: { success: true; data: T } | { success: false; error: ZodError }): T {
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new InvalidArgumentError(issue?.path.join(".") || "input", issue?.message ?? "invalid");
}

function describe(view: ResourceView): string {
  return [
    `kind=${view.kind}${view.permits === null ? "" : ` permits=${view.permits}`}${
      view.kind === "rwlock" ? ` writerPreference=${view.writerPreference}` : ""
    }`,
    `defaultLeaseMs=${view.defaultLeaseMs}`,
    `maxLeaseMs=${view.maxLeaseMs}`,
    `maxRenewals=${view.maxRenewals ?? "none"}`,
    `expectedHoldMs=${view.expectedHoldMs ?? "none"}`,
    `releaseOnDisconnectMs=${view.releaseOnDisconnectMs ?? "none"}`,
    `degrade=${view.degrade}`,
    `localFallback=${view.localFallback}`,
    `fair=${view.fair}`,
    `waitReplicas=${view.waitReplicas}`,
  ].join(" ");
}
