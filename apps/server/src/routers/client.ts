import { InvalidArgumentError } from "@warden/contract";
import { auditRecord } from "../audit/audit-record.js";
import { likePrefix, resourcePrefixOf } from "../auth/resource-prefix.js";
import { checkIdentifier, MAX_CLIENT_ID, MAX_HOST } from "../auth/identifiers.js";
import { clientListInputSchema, heartbeatInputSchema } from "../schemas/admin.js";
import { authedProcedure, router, tenantProcedure } from "../trpc.js";

// How far ahead of this server's clock a client's clock may run before its report is refused.
const MAX_CLOCK_AHEAD_MS = 60_000;

function notInFuture(field: string, ms: number, now: number): void {
  if (ms > now + MAX_CLOCK_AHEAD_MS) {
    throw new InvalidArgumentError(field, "is in the future; report past instants only");
  }
}

interface ClientRow {
  client_id: string;
  tenant_id: string;
  host: string;
  pid: number | bigint;
  sdk_version: string;
  tier: string;
  started_at: Date | string;
  last_seen_at: Date | string;
  local_since: Date | string | null;
}

/** SDK instances: heartbeats in, the console's list out. */
export const clientRouter = router({
  /**
   * An SDK instance says it is alive, which tier it uses and since when it holds local
   * locks; ended local-mode periods become `local-mode` audit events, dated by this
   * server's view of the instance (never before its first heartbeat, never after now).
   */
  heartbeat: tenantProcedure.input(heartbeatInputSchema).mutation(async ({ ctx, input }) => {
    const clientId = checkIdentifier("clientId", ctx.request.clientId, MAX_CLIENT_ID);
    const host = checkIdentifier("host", input.host, MAX_HOST);
    const { heartbeats, hub } = ctx.services;
    const tenantId = ctx.principal.tenantId;
    const now = Date.now();
    const localSinceMs = input.localSinceMs ?? null;
    if (localSinceMs !== null) notInFuture("localSinceMs", localSinceMs, now);
    for (const period of input.localPeriods ?? []) {
      notInFuture("localPeriods.toMs", period.toMs, now);
      if (period.fromMs > period.toMs) {
        throw new InvalidArgumentError("localPeriods.fromMs", "must not be after toMs");
      }
    }
    // clientIds are per tenant (the key is (tenant, clientId)): another tenant's instance
    // of the same name is simply not this row. What a client reports about its past is
    // clamped to what this server saw of it: from its first heartbeat until now (read only
    // when there is such an instant). The reported instants stay in the row's reason.
    const reportsPast = localSinceMs !== null || (input.localPeriods ?? []).length > 0;
    const firstSeenMs = reportsPast
      ? ((await heartbeats.firstSeenMs(tenantId, clientId)) ?? now)
      : now;
    const clamp = (ms: number) => Math.min(now, Math.max(firstSeenMs, ms));
    await heartbeats.record({
      tenantId,
      clientId,
      host,
      pid: input.pid,
      sdkVersion: input.sdkVersion,
      tier: input.tier,
      seenAt: new Date(now),
      localSince: localSinceMs === null ? null : new Date(clamp(localSinceMs)),
    });
    for (const period of input.localPeriods ?? []) {
      const fromMs = clamp(period.fromMs);
      const toMs = clamp(period.toMs);
      hub.record(
        auditRecord({
          type: "local-mode",
          tenantId,
          resource: "*",
          clientId,
          tier: "local",
          reason: `local locks for ${toMs - fromMs} ms until ${new Date(toMs).toISOString()} (reported ${period.fromMs}..${period.toMs})`,
          at: fromMs,
        }),
      );
    }
    return { ok: true, currentTier: ctx.services.locks.tier };
  }),

  /**
   * Instances seen within `activeWithinMs` (default 60 s), newest first. A key limited to
   * a resource prefix sees only instances that have held a lock, a semaphore permit or a
   * read or write grant under its prefix (as far as the audit trail's holds go back; permit
   * grants have hold rows since decision 0196, read-write grants since decision 0199): the
   * others serve resources that, for it, do not exist
   * (docs/decisions/0100).
   */
  list: authedProcedure.input(clientListInputSchema).query(async ({ ctx, input }) => {
    const since = new Date(Date.now() - (input.activeWithinMs ?? 60_000));
    const take = input.limit ?? 200;
    const { prisma } = ctx.services;
    const prefix = resourcePrefixOf(ctx.principal);
    const rows =
      ctx.principal.kind === "tenant" && prefix !== null
        ? (
            await prisma.$queryRaw<ClientRow[]>`
              SELECT c.client_id, c.tenant_id, c.host, c.pid, c.sdk_version, c.tier,
                     c.started_at, c.last_seen_at, c.local_since
              FROM client_instance c
              WHERE c.tenant_id = ${ctx.principal.tenantId} AND c.last_seen_at >= ${since}
                AND EXISTS (SELECT 1 FROM lock_hold h
                            WHERE h.client_id = c.client_id AND h.tenant_id = c.tenant_id
                              AND h.resource LIKE ${likePrefix(prefix)})
              ORDER BY c.last_seen_at DESC
              LIMIT ${take}`
          ).map((row) => ({
            clientId: row.client_id,
            tenantId: row.tenant_id,
            host: row.host,
            pid: Number(row.pid),
            sdkVersion: row.sdk_version,
            tier: row.tier,
            startedAt: new Date(row.started_at),
            lastSeenAt: new Date(row.last_seen_at),
            localSince: row.local_since === null ? null : new Date(row.local_since),
          }))
        : await prisma.clientInstance.findMany({
            where: {
              lastSeenAt: { gte: since },
              ...(ctx.principal.kind === "tenant" ? { tenantId: ctx.principal.tenantId } : {}),
            },
            orderBy: { lastSeenAt: "desc" },
            take,
            select: {
              clientId: true,
              tenantId: true,
              host: true,
              pid: true,
              sdkVersion: true,
              tier: true,
              startedAt: true,
              lastSeenAt: true,
              localSince: true,
            },
          });
    return rows.map((row) => ({
      ...row,
      startedAt: row.startedAt.getTime(),
      lastSeenAt: row.lastSeenAt.getTime(),
      localSince: row.localSince?.getTime() ?? null,
    }));
  }),
});
