import { TRPCError } from "@trpc/server";
import { eventSearchInputSchema } from "../schemas/admin.js";
import { authedProcedure, router } from "../trpc.js";

const EVENT_SELECT = {
  id: true,
  type: true,
  tenantId: true,
  resource: true,
  businessKey: true,
  lockId: true,
  fence: true,
  clientId: true,
  ownerId: true,
  tier: true,
  leaseMs: true,
  actor: true,
  reason: true,
  at: true,
} as const;

// Cursor: `<at ms>_<id>` of the last row of the previous page (newest first).
function parseCursor(cursor: string): { at: Date; id: string } {
  const match = /^(\d{1,16})_([A-Za-z0-9-]{1,36})$/.exec(cursor);
  if (!match)
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: "cursor: not a cursor from a previous page",
    });
  return { at: new Date(Number(match[1])), id: match[2]! };
}

/** The audit trail. A tenant key sees its own tenant's events only. */
export const eventRouter = router({
  /** Events matching every given filter, newest first, paged. Fences are decimal strings. */
  search: authedProcedure.input(eventSearchInputSchema).query(async ({ ctx, input }) => {
    const limit = input.limit ?? 100;
    const after = input.cursor === undefined ? null : parseCursor(input.cursor);
    const rows = await ctx.services.prisma.lockEvent.findMany({
      where: {
        ...(ctx.principal.kind === "tenant" ? { tenantId: ctx.principal.tenantId } : {}),
        ...(input.fence === undefined ? {} : { fence: BigInt(input.fence) }),
        ...(input.lockId === undefined ? {} : { lockId: input.lockId }),
        ...(input.clientId === undefined ? {} : { clientId: input.clientId }),
        ...(input.ownerId === undefined ? {} : { ownerId: input.ownerId }),
        ...(input.businessKey === undefined ? {} : { businessKey: input.businessKey }),
        ...(input.resource === undefined ? {} : { resource: input.resource }),
        ...(input.type === undefined ? {} : { type: input.type }),
        at: {
          ...(input.fromMs === undefined ? {} : { gte: new Date(input.fromMs) }),
          ...(input.toMs === undefined ? {} : { lte: new Date(input.toMs) }),
        },
        ...(after === null
          ? {}
          : { OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }] }),
      },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      take: limit + 1,
      select: EVENT_SELECT,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      events: page.map((row) => ({
        ...row,
        fence: row.fence?.toString() ?? null,
        at: row.at.getTime(),
      })),
      cursor: rows.length > limit && last ? `${last.at.getTime()}_${last.id}` : null,
    };
  }),
});
