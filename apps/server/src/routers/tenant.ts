import { z } from "zod";
import { InvalidArgumentError } from "@warden/contract";
import { generateApiKey } from "../auth/api-key.js";
import { API_KEY_SCOPES, formatScopes, parseScopes } from "../auth/scopes.js";
import { ConflictError } from "../errors/conflict-error.js";
import {
  apiKeyCreateInputSchema,
  apiKeyRevokeInputSchema,
  tenantCreateInputSchema,
} from "../schemas/admin.js";
import { tenantIdSchema } from "../schemas/common.js";
import { roleProcedure, router } from "../trpc.js";

// `scopes` defaults to lock only: a service key that may change policy is a decision.
const createApiKeyInputSchema = apiKeyCreateInputSchema.extend({
  scopes: z
    .array(z.enum(API_KEY_SCOPES as ["lock", "admin"]))
    .max(API_KEY_SCOPES.length)
    .optional(),
  /** Only resources whose names start with this (e.g. `orders:`); default every one. */
  resourcePrefix: z
    .string()
    .max(128)
    .regex(/^[A-Za-z0-9:._-]*$/, "letters, digits and ':._-'")
    .optional(),
});

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

  /**
   * A new key for a tenant: `key` is in this answer only; Warden keeps its hash. `scopes`
   * (default `["lock"]`) adds `admin` for keys that may change resource policies.
   */
  createApiKey: roleProcedure("admin")
    .input(createApiKeyInputSchema)
    .mutation(async ({ ctx, input }) => {
      const tenant = await ctx.services.prisma.tenant.findUnique({
        where: { id: input.tenantId },
        select: { id: true },
      });
      if (!tenant) throw new InvalidArgumentError("tenantId", `no tenant "${input.tenantId}"`);
      const made = generateApiKey();
      const scopes = formatScopes(input.scopes ?? ["lock"]);
      await ctx.services.prisma.apiKey.create({
        data: {
          id: made.id,
          tenantId: input.tenantId,
          name: input.name,
          prefix: made.prefix,
          hash: made.hash,
          scopes,
          resourcePrefix: input.resourcePrefix ?? "",
        },
        select: { id: true },
      });
      ctx.services.logger.info(
        {
          op: "api-key-create",
          tenantId: input.tenantId,
          keyId: made.id,
          scopes,
          actor: ctx.actor,
        },
        "API key created",
      );
      return {
        id: made.id,
        key: made.key,
        prefix: made.prefix,
        scopes: parseScopes(scopes),
        resourcePrefix: input.resourcePrefix ?? "",
      };
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
          scopes: true,
          resourcePrefix: true,
        },
      }),
    ),

  /** Revokes a key; it stops working at once here and within 1 s on other instances. */
  revokeApiKey: roleProcedure("admin")
    .input(apiKeyRevokeInputSchema)
    .mutation(async ({ ctx, input }) => ({ revoked: await ctx.services.apiKeys.revoke(input.id) })),
});
