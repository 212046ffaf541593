import { z } from "zod";
import { InvalidArgumentError } from "@warden/core";
import { generateApiKey } from "../auth/api-key.js";
import { ConflictError } from "../errors/conflict-error.js";
import {
  apiKeyCreateInputSchema,
  apiKeyRevokeInputSchema,
  tenantCreateInputSchema,
} from "../schemas/admin.js";
import { tenantIdSchema } from "../schemas/common.js";
import { roleProcedure, router } from "../trpc.js";

/** Tenants and their API keys (admin). The CLI offers the same operations. */
export const tenantRouter = router({
  list: roleProcedure("viewer").query(({ ctx }) =>
    ctx.services.prisma.tenant.findMany({
      orderBy: { id: "asc" },
      take: 1_000,
      select: { id: true, name: true, requestsPerSecond: true, disabledAt: true },
    }),
  ),

  create: roleProcedure("admin")
    .input(tenantCreateInputSchema)
    .mutation(async ({ ctx, input }) => {
      const taken = await ctx.services.prisma.tenant.findUnique({
        where: { id: input.id },
        select: { id: true },
      });
      if (taken) throw new ConflictError(`tenant "${input.id}" already exists`);
      return ctx.services.prisma.tenant.create({
        data: input,
        select: { id: true, name: true, requestsPerSecond: true },
      });
    }),

  /** A new key for a tenant: `key` is in this answer only; Warden keeps its hash. */
  createApiKey: roleProcedure("admin")
    .input(apiKeyCreateInputSchema)
    .mutation(async ({ ctx, input }) => {
      const tenant = await ctx.services.prisma.tenant.findUnique({
        where: { id: input.tenantId },
        select: { id: true },
      });
      if (!tenant) throw new InvalidArgumentError("tenantId", `no tenant "${input.tenantId}"`);
      const made = generateApiKey();
      await ctx.services.prisma.apiKey.create({
        data: {
          id: made.id,
          tenantId: input.tenantId,
          name: input.name,
          prefix: made.prefix,
          hash: made.hash,
        },
        select: { id: true },
      });
      return { id: made.id, key: made.key, prefix: made.prefix };
    }),

  listApiKeys: roleProcedure("admin")
    .input(z.object({ tenantId: tenantIdSchema }))
    .query(({ ctx, input }) =>
      ctx.services.prisma.apiKey.findMany({
        where: { tenantId: input.tenantId },
        orderBy: { createdAt: "desc" },
        take: 1_000,
        select: {
          id: true,
          name: true,
          prefix: true,
          createdAt: true,
          lastUsedAt: true,
          revokedAt: true,
        },
      }),
    ),

  /** Revokes a key; it stops working at once here and within 1 s on other instances. */
  revokeApiKey: roleProcedure("admin")
    .input(apiKeyRevokeInputSchema)
    .mutation(async ({ ctx, input }) => ({ revoked: await ctx.services.apiKeys.revoke(input.id) })),
});
