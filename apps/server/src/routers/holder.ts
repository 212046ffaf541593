import { holderListInputSchema, forceReleaseInputSchema } from "../schemas/lock.js";
import { lockKeyInputSchema } from "../schemas/lock.js";
import { authedProcedure, roleProcedure, router } from "../trpc.js";

/** Who holds and who waits, for the console (and a tenant's own tooling). */
export const holderRouter = router({
  /**
   * Live holders of a resource (one key with `businessKey`), in the current tier, with
   * the renewals and grant time this instance saw; paged by the store's cursor.
   */
  list: authedProcedure.input(holderListInputSchema).query(async ({ ctx, input }) => {
    const { services } = ctx;
    const resource = await services.registry.get(input.resource, ctx.principal);
    const page =
      input.businessKey === undefined
        ? await services.locks.list({
            resource: resource.name,
            ...(input.tier === undefined ? {} : { tier: input.tier }),
            ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
            ...(input.limit === undefined ? {} : { limit: input.limit }),
          })
        : await services.locks
            .inspect({ resource: resource.name, businessKey: input.businessKey })
            .then((lease) => ({ leases: lease ? [lease] : [], cursor: null }));
    const holders = page.leases.map((lease) => {
      const tracked = services.tracker.get(lease.lockId);
      return {
        ...lease,
        grantedAt: tracked?.grantedAt ?? null,
        renewals: tracked?.renewals ?? null,
        expectedHoldMs: resource.expectedHoldMs,
      };
    });
    return { holders, cursor: page.cursor, currentTier: services.locks.tier };
  }),

  /** Waiters of a resource or key on this instance, in queue order per key. */
  waiters: authedProcedure
    .input(lockKeyInputSchema.partial({ businessKey: true }))
    .query(async ({ ctx, input }) => {
      const resource = await ctx.services.registry.get(input.resource, ctx.principal);
      return {
        fair: resource.fair,
        waiters: ctx.services.waiters.list(resource.name, input.businessKey),
      };
    }),

  /**
   * Removes a lease whoever holds it (or only grant `lockId`), with a reason. Needs the
   * operator role; the audit row names the operator and the reason.
   */
  forceRelease: roleProcedure("operator")
    .input(forceReleaseInputSchema)
    .mutation(async ({ ctx, input }) => {
      const { services } = ctx;
      await services.registry.get(input.resource, ctx.principal);
      const key = { resource: input.resource, businessKey: input.businessKey };
      const done = services.hub.attribute(key, ctx.actor, input.reason);
      try {
        const removed = await services.locks.forceRelease({
          ...key,
          ...(input.lockId === undefined ? {} : { lockId: input.lockId }),
        });
        services.logger.info(
          {
            op: "force-release",
            ...key,
            lockId: removed?.lockId ?? null,
            fence: removed?.fence ?? null,
            actor: ctx.actor,
            reason: input.reason,
          },
          removed ? "lease force-released" : "force-release found no lease",
        );
        return { removed, currentTier: services.locks.tier };
      } finally {
        done();
      }
    }),
});
