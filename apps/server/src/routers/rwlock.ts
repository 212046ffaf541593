import type { TenantPrincipal } from "../auth/principal.js";
import type { Context } from "../context.js";
import {
  rwAcquireInputSchema,
  rwExtendInputSchema,
  rwKeyInputSchema,
  rwReleaseInputSchema,
} from "../schemas/rwlock.js";
import { router, tenantProcedure } from "../trpc.js";
import type { LockCaller } from "../usecases/index.js";
import type { RwUseCases } from "../usecases/rw-usecases.js";
import { notServed } from "../errors/not-served.js";

function callerOf(ctx: Context & { principal: TenantPrincipal }): LockCaller {
  return { principal: ctx.principal, clientId: ctx.request.clientId };
}

function useCases(ctx: Context): RwUseCases {
  const ops = ctx.services.rwUseCases;
  if (!ops) throw notServed("read-write locks");
  return ops;
}

function signalOf(ctx: Context, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([signal, ctx.request.signal]) : ctx.request.signal;
}

/**
 * The read-write lock calls (docs/decisions/0166): thin adapters over
 * `services.rwUseCases`, with the lock calls' authentication and tenant rules (a tenant API
 * key; another tenant's resource is UNKNOWN_RESOURCE). The SDK's lock socket calls them by
 * path (`rwlock.acquireRead`, …).
 */
export const rwlockRouter = router({
  /** A read grant of the key to this client's `ownerId` (shared with other readers), or why not. */
  acquireRead: tenantProcedure
    .input(rwAcquireInputSchema)
    .mutation(({ ctx, input, signal }) =>
      useCases(ctx).acquire("read", callerOf(ctx), input, signalOf(ctx, signal)),
    ),

  /** The key's one write grant to this client's `ownerId`, or why not. */
  acquireWrite: tenantProcedure
    .input(rwAcquireInputSchema)
    .mutation(({ ctx, input, signal }) =>
      useCases(ctx).acquire("write", callerOf(ctx), input, signalOf(ctx, signal)),
    ),

  /** Releases the grant `lockId` (one entry of it when re-entered). */
  release: tenantProcedure
    .input(rwReleaseInputSchema)
    .mutation(({ ctx, input }) => useCases(ctx).release(callerOf(ctx), input)),

  /** Renews the grant `lockId` to `leaseMs` from now (default: the resource's defaultLeaseMs). */
  extend: tenantProcedure
    .input(rwExtendInputSchema)
    .mutation(({ ctx, input }) => useCases(ctx).extend(callerOf(ctx), input)),

  /** The key's writer, readers, read fence and waiting writers. */
  inspect: tenantProcedure
    .input(rwKeyInputSchema)
    .query(({ ctx, input }) => useCases(ctx).inspect(callerOf(ctx), input)),
});
