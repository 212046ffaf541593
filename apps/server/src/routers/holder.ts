import { InvalidArgumentError, LockUnavailableError } from "@warden/contract";
import { holderListInputSchema, forceReleaseInputSchema } from "../schemas/lock.js";
import { lockKeyInputSchema } from "../schemas/lock.js";
import { authedProcedure, roleProcedure, router } from "../trpc.js";

const U64_MAX = (1n << 64n) - 1n;

/**
 * Checks a `holder.list` cursor before any store sees it: the Redis tier's
 * `node:scanCursor:skip`, or the MySQL and local tiers' decimal position. A cursor the
 * stores would choke on (Redis answers "ERR invalid cursor" past 2^64 − 1) is a typed 400.
 */
function checkCursor(cursor: string): string {
  const redis = /^(\d{1,4}):(\d{1,20}):(\d{1,6})$/.exec(cursor);
  const ok = redis ? BigInt(redis[2]!) <= U64_MAX : /^\d{1,19}$/.test(cursor);
  if (!ok) throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  return cursor;
}

/** A semaphore list's cursor: a decimal position among the resource's keys. */
function checkPositionCursor(cursor: string): string {
  if (!/^\d{1,9}$/.test(cursor)) {
    throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  }
  return cursor;
}

/** Who holds and who waits, for the console (and a tenant's own tooling). */
export const holderRouter = router({
  /**
   * Live holders of a resource (one key with `businessKey`), in the current tier, with
   * their grant time and renewals as the store keeps them; paged by the store's cursor.
   * Each entry says what it is: `kind: "lock"` (a mutex lease, `permits` null) or
   * `kind: "permit"` (a semaphore permit grant holding `permits` of the key's total, its
   * `reentry` always 1; from every reachable tier unless `tier` names one; paged by key,
   * docs/decisions/0162).
   */
  list: authedProcedure.input(holderListInputSchema).query(async ({ ctx, input }) => {
    const { services } = ctx;
    const resource = await services.registry.get(input.resource, ctx.principal);
    if (resource.kind === "semaphore") {
      const semaphores = services.semaphoreUseCases;
      if (!semaphores) throw new LockUnavailableError("this server was started without semaphores");
      const permits = await semaphores.list(resource, {
        ...(input.businessKey === undefined ? {} : { businessKey: input.businessKey }),
        ...(input.tier === undefined ? {} : { tier: input.tier }),
        ...(input.cursor === undefined ? {} : { cursor: checkPositionCursor(input.cursor) }),
        ...(input.limit === undefined ? {} : { limit: input.limit }),
      });
      const holders = permits.holders.map((permit) => ({
        kind: "permit" as const,
        resource: permit.resource,
        businessKey: permit.businessKey,
        lockId: permit.lockId,
        fence: permit.fence,
        holder: { clientId: permit.holder.clientId, ownerId: permit.holder.ownerId },
        reentry: 1,
        permits: permit.permits,
        grantedAt: permit.grantedAt,
        renewals: permit.renewals,
        expiresAt: permit.expiresAt,
        ttlMs: permit.ttlMs,
        tier: permit.tier,
        expectedHoldMs: resource.expectedHoldMs,
      }));
      return { holders, cursor: permits.cursor, currentTier: services.locks.tier };
    }
    const page =
      input.businessKey === undefined
        ? await services.locks.list({
            resource: resource.name,
            ...(input.tier === undefined ? {} : { tier: input.tier }),
            ...(input.cursor === undefined ? {} : { cursor: checkCursor(input.cursor) }),
            ...(input.limit === undefined ? {} : { limit: input.limit }),
          })
        : await services.locks
            .inspect({ resource: resource.name, businessKey: input.businessKey })
            .then((lease) => ({ leases: lease ? [lease] : [], cursor: null }));
    // grantedAt and renewals are kept with the lease by the store: the same on any instance.
    const holders = page.leases.map((lease) => ({
      kind: "lock" as const,
      ...lease,
      permits: null as number | null,
      expectedHoldMs: resource.expectedHoldMs,
    }));
    return { holders, cursor: page.cursor, currentTier: services.locks.tier };
  }),

  /**
   * Waiters of a resource or key across the fleet, the same list from every instance
   * (docs/decisions/0155): for fair resources in the store's queue order, for the others
   * by when they began; `position` 0 is next. A semaphore's waiting acquires are listed by
   * when they began (a fair semaphore serves them in that order, docs/decisions/0162);
   * `kind` says whether the resource's waiters wait for a lock or for permits.
   */
  waiters: authedProcedure
    .input(lockKeyInputSchema.partial({ businessKey: true }))
    .query(async ({ ctx, input }) => {
      const resource = await ctx.services.registry.get(input.resource, ctx.principal);
      const semaphore = resource.kind === "semaphore";
      return {
        fair: resource.fair,
        kind: semaphore ? ("permit" as const) : ("lock" as const),
        // The semaphore's store queue is not the mutex's: list its waits by arrival.
        waiters: await ctx.services.lockService.listWaiters(
          semaphore ? { ...resource, fair: false } : resource,
          input.businessKey,
        ),
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
