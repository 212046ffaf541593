import { InvalidArgumentError, type LeaseView } from "@warden/contract";
import { holderListInputSchema, forceReleaseInputSchema } from "../schemas/lock.js";
import { lockKeyInputSchema } from "../schemas/lock.js";
import { authedProcedure, roleProcedure, router } from "../trpc.js";
import { notServed } from "../errors/not-served.js";

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

/**
 * A semaphore's or an rwlock's list cursor: without `tier`, the tiers still to walk (`redis,mysql:`, one to
 * three, comma-separated) and the store's cursor (Redis `node:scanCursor:skip`, MySQL and
 * local a base64url key); with it, the store's alone.
 * Anything else is a typed 400 before a store sees it; the stores check the rest.
 */
function checkTieredCursor(cursor: string, tiered: boolean): string {
  const store = tiered
    ? /^(?:redis|mysql|local)(?:,(?:redis|mysql|local)){0,2}:(.*)$/s.exec(cursor)?.[1]
    : cursor;
  const ok =
    store !== undefined &&
    (store === "" ? tiered : /^\d{1,4}:\d{1,20}:\d{1,6}$|^[A-Za-z0-9_-]{2,300}$/.test(store));
  if (!ok) throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  return cursor;
}

/** What a force-release removed: a mutex lease, a permit grant, or a read or write grant. */
type RemovedGrantKind = "lock" | "permit" | "read" | "write";

/** One grant a force-release removed. */
export interface RemovedGrant {
  readonly kind: RemovedGrantKind;
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: { readonly clientId: string; readonly ownerId: string };
}

function removedGrant(
  kind: RemovedGrantKind,
  grant: Omit<RemovedGrant, "kind" | "holder"> & { holder: RemovedGrant["holder"] },
): RemovedGrant {
  return {
    kind,
    lockId: grant.lockId,
    fence: grant.fence,
    holder: { clientId: grant.holder.clientId, ownerId: grant.holder.ownerId },
  };
}

/** Who holds and who waits, for the console (and a tenant's own tooling). */
export const holderRouter = router({
  /**
   * Live holders of a resource (one key with `businessKey`), in the current tier, with
   * their grant time and renewals as the store keeps them; paged by the store's cursor.
   * Each entry says what it is: `kind: "lock"` (a mutex lease, `permits` null) or
   * `kind: "permit"` (a semaphore permit grant holding `permits` of the key's total, its
   * `reentry` always 1, docs/decisions/0162), or `kind: "read"` / `"write"` (a read-write
   * grant, `permits` null, docs/decisions/0185). Permits and read-write grants are listed by
   * key as the stores list them, every tier in turn unless `tier` names one, a page per
   * tier (docs/decisions/0217).
   */
  list: authedProcedure.input(holderListInputSchema).query(async ({ ctx, input }) => {
    const { services } = ctx;
    const resource = await services.registry.get(input.resource, ctx.principal);
    if (resource.kind === "semaphore") {
      const semaphores = services.semaphoreUseCases;
      if (!semaphores) throw notServed("semaphores");
      const permits = await semaphores.list(resource, {
        ...(input.businessKey === undefined ? {} : { businessKey: input.businessKey }),
        ...(input.tier === undefined ? {} : { tier: input.tier }),
        ...(input.cursor === undefined || input.businessKey !== undefined
          ? {}
          : { cursor: checkTieredCursor(input.cursor, input.tier === undefined) }),
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
    if (resource.kind === "rwlock") {
      const rw = services.rwUseCases;
      if (!rw) throw notServed("read-write locks");
      const page = await rw.list(resource, {
        ...(input.businessKey === undefined ? {} : { businessKey: input.businessKey }),
        ...(input.tier === undefined ? {} : { tier: input.tier }),
        ...(input.cursor === undefined || input.businessKey !== undefined
          ? {}
          : { cursor: checkTieredCursor(input.cursor, input.tier === undefined) }),
        ...(input.limit === undefined ? {} : { limit: input.limit }),
      });
      const holders = page.grants.map((grant) => ({
        kind: grant.mode,
        resource: grant.resource,
        businessKey: grant.businessKey,
        lockId: grant.lockId,
        fence: grant.fence,
        holder: { clientId: grant.holder.clientId, ownerId: grant.holder.ownerId },
        reentry: grant.reentry,
        permits: null as number | null,
        grantedAt: grant.grantedAt,
        renewals: grant.renewals,
        expiresAt: grant.expiresAt,
        ttlMs: grant.ttlMs,
        tier: grant.tier,
        expectedHoldMs: resource.expectedHoldMs,
      }));
      return { holders, cursor: page.cursor, currentTier: services.locks.tier };
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
   * when they began (a fair semaphore serves them in that order, docs/decisions/0162), and
   * so are an rwlock's waiting reads and writes (docs/decisions/0185); `kind` says whether
   * the resource's waiters wait for a lock, for permits, or for a read-write grant (`rw`).
   */
  waiters: authedProcedure
    .input(lockKeyInputSchema.partial({ businessKey: true }))
    .query(async ({ ctx, input }) => {
      const resource = await ctx.services.registry.get(input.resource, ctx.principal);
      const kind =
        resource.kind === "semaphore"
          ? ("permit" as const)
          : resource.kind === "rwlock"
            ? ("rw" as const)
            : ("lock" as const);
      return {
        fair: resource.fair,
        kind,
        // Neither the semaphore's store queue nor read-write intents are the mutex's queue:
        // their waits are listed by arrival.
        waiters: await ctx.services.lockService.listWaiters(
          kind === "lock" ? resource : { ...resource, fair: false },
          input.businessKey,
        ),
      };
    }),

  /**
   * Removes a key's holders whoever they are (or only grant `lockId`), with a reason: a
   * mutex lease, a semaphore's permit grants or an rwlock's read and write grants, on every
   * tier (docs/decisions/0185). Needs the operator role; each removed grant's audit row
   * names the operator and the reason, the live feed shows it and the key's waiters wake.
   * `removed` is the mutex lease (null otherwise); `removedGrants` lists every grant removed.
   */
  forceRelease: roleProcedure("operator")
    .input(forceReleaseInputSchema)
    .mutation(async ({ ctx, input }) => {
      const { services } = ctx;
      const resource = await services.registry.get(input.resource, ctx.principal);
      const key = { resource: resource.name, businessKey: input.businessKey };
      const target = {
        businessKey: input.businessKey,
        ...(input.lockId === undefined ? {} : { lockId: input.lockId }),
      };
      const by = { actor: ctx.actor, reason: input.reason };
      if (resource.kind === "rwlock") {
        const rw = services.rwUseCases;
        if (!rw) throw notServed("read-write locks");
        const grants = await rw.forceRelease(resource, target, by);
        return {
          removed: null as LeaseView | null,
          removedGrants: grants.map((grant) => removedGrant(grant.mode, grant)),
          currentTier: services.locks.tier,
        };
      }
      if (resource.kind === "semaphore") {
        const semaphores = services.semaphoreUseCases;
        if (!semaphores) throw notServed("semaphores");
        const permits = await semaphores.forceRelease(resource, target, by);
        return {
          removed: null as LeaseView | null,
          removedGrants: permits.map((permit) => removedGrant("permit", permit)),
          currentTier: services.locks.tier,
        };
      }
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
        return {
          removed,
          removedGrants: removed ? [removedGrant("lock", removed)] : [],
          currentTier: services.locks.tier,
        };
      } finally {
        done();
      }
    }),
});
