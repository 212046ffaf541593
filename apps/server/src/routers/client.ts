import { auditRecord } from "../audit/audit-record.js";
import { clientListInputSchema, heartbeatInputSchema } from "../schemas/admin.js";
import { authedProcedure, router, tenantProcedure } from "../trpc.js";
import { InvalidArgumentError } from "@warden/core";

/** SDK instances: heartbeats in, the console's list out. */
export const clientRouter = router({
  /**
   * An SDK instance says it is alive, which tier it uses and since when it holds local
   * locks; ended local-mode periods become `local-mode` audit events.
   */
  heartbeat: tenantProcedure.input(heartbeatInputSchema).mutation(async ({ ctx, input }) => {
    const clientId = ctx.request.clientId;
    if (clientId === null || clientId.length === 0 || clientId.length > 128) {
      throw new InvalidArgumentError(
        "clientId",
        "send x-warden-client-id or connectionParams.clientId",
      );
    }
    const { prisma, hub } = ctx.services;
    const tenantId = ctx.principal.tenantId;
    const fields = {
      host: input.host,
      pid: input.pid,
      sdkVersion: input.sdkVersion,
      tier: input.tier,
      lastSeenAt: new Date(),
      localSince: input.localSinceMs == null ? null : new Date(input.localSinceMs),
    };
    const existing = await prisma.clientInstance.findUnique({
      where: { clientId },
      select: { tenantId: true },
    });
    // A clientId is one tenant's: another tenant's heartbeat cannot take it over.
    if (existing && existing.tenantId !== tenantId) {
      throw new InvalidArgumentError("clientId", "is registered to another tenant");
    }
    await prisma.clientInstance.upsert({
      where: { clientId },
      create: { clientId, tenantId, ...fields },
      update: fields,
      select: { clientId: true },
    });
    for (const period of input.localPeriods ?? []) {
      hub.record(
        auditRecord({
          type: "local-mode",
          tenantId,
          resource: "*",
          clientId,
          tier: "local",
          reason: `local locks for ${Math.max(0, period.toMs - period.fromMs)} ms until ${new Date(period.toMs).toISOString()}`,
          at: period.fromMs,
        }),
      );
    }
    return { ok: true, currentTier: ctx.services.locks.tier };
  }),

  /** Instances seen within `activeWithinMs` (default 60 s), newest first. */
  list: authedProcedure.input(clientListInputSchema).query(async ({ ctx, input }) => {
    const since = new Date(Date.now() - (input.activeWithinMs ?? 60_000));
    const rows = await ctx.services.prisma.clientInstance.findMany({
      where: {
        lastSeenAt: { gte: since },
        ...(ctx.principal.kind === "tenant" ? { tenantId: ctx.principal.tenantId } : {}),
      },
      orderBy: { lastSeenAt: "desc" },
      take: input.limit ?? 200,
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
