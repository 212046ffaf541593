import { auditRecord } from "../audit/audit-record.js";
import { requirePolicyRights } from "../auth/scopes.js";
import type { Context } from "../context.js";
import { policyDiff } from "../registry/policy-diff.js";
import type { PolicyChangeListener } from "../registry/resource-registry.js";
import { resourceListInputSchema, resourceNameInputSchema } from "../schemas/admin.js";
import { resourceCreateSchema, resourceUpdateSchema } from "../schemas/resource-policy.js";
import { authedProcedure, editorProcedure, router } from "../trpc.js";
import { notServed } from "../errors/not-served.js";

const TIERS = ["redis", "mysql", "local"] as const;

/**
 * Audits a policy change with who made it and the before/after of every changed field,
 * dated by this server's clock.
 */
function auditPolicy(ctx: Context, actor: string): PolicyChangeListener {
  return (before, after) =>
    ctx.services.hub.record(
      auditRecord({
        type: "policy",
        tenantId: after.tenantId,
        resource: after.name,
        actor: actor.slice(0, 128),
        reason: policyDiff(before, after),
        at: Date.now(),
      }),
    );
}

/**
 * The resource registry. A tenant key sees only its tenant's resources; changing them
 * needs an admin-scoped key or an operator session, and every change is audited.
 */
export const resourceRouter = router({
  /** Resources the caller may see, by name; `cursor` is the last name of the previous page. */
  list: authedProcedure
    .input(resourceListInputSchema)
    .query(({ ctx, input }) => ctx.services.registry.list(ctx.principal, input)),

  /** One resource, retired ones included. */
  get: authedProcedure
    .input(resourceNameInputSchema)
    .query(({ ctx, input }) => ctx.services.registry.get(input.name, ctx.principal)),

  /** Registers a resource with its policy; CONFLICT when the name is taken. */
  create: editorProcedure.input(resourceCreateSchema).mutation(({ ctx, input }) => {
    requirePolicyRights(ctx.principal);
    return ctx.services.registry.create(ctx.principal, input, auditPolicy(ctx, ctx.actor));
  }),

  /** Changes a live resource's policy. */
  update: editorProcedure.input(resourceUpdateSchema).mutation(({ ctx, input }) => {
    requirePolicyRights(ctx.principal);
    return ctx.services.registry.update(
      ctx.principal,
      input.name,
      input.patch,
      auditPolicy(ctx, ctx.actor),
    );
  }),

  /**
   * Retires a resource; CONFLICT while it has live holders on any tier: mutex leases,
   * semaphore permits or read-write grants, by the resource's kind (docs/decisions/0185).
   */
  retire: editorProcedure.input(resourceNameInputSchema).mutation(async ({ ctx, input }) => {
    requirePolicyRights(ctx.principal);
    const { services } = ctx;
    const resource = await services.registry.get(input.name, ctx.principal);
    return services.registry.retire(
      ctx.principal,
      input.name,
      async (name) => {
        if (resource.kind === "rwlock") {
          const rw = services.rwUseCases;
          if (!rw) throw notServed("read-write locks");
          return rw.hasLiveGrants(resource);
        }
        if (resource.kind === "semaphore") {
          const semaphores = services.semaphoreUseCases;
          if (!semaphores) throw notServed("semaphores");
          return semaphores.hasLiveGrants(resource);
        }
        // Every tier: leases granted before a tier switch live on where they were granted.
        // If the current tier cannot answer, refuse rather than guess; a tier that is down
        // and not current grants nothing new, and its holders may still release.
        const pages = await Promise.all(
          TIERS.map((tier) =>
            ctx.services.locks.list({ resource: name, limit: 1, tier }).then(
              (page) => page.leases.length > 0,
              () => tier === ctx.services.locks.tier,
            ),
          ),
        );
        return pages.some(Boolean);
      },
      auditPolicy(ctx, ctx.actor),
    );
  }),
});
