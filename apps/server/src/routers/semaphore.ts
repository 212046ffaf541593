import type { TenantPrincipal } from "../auth/principal.js";
import type { Context } from "../context.js";
import {
  semaphoreAcquireInputSchema,
  semaphoreExtendInputSchema,
  semaphoreKeyInputSchema,
  semaphoreReleaseInputSchema,
} from "../schemas/semaphore.js";
import { router, tenantProcedure } from "../trpc.js";
import type { LockCaller } from "../usecases/index.js";
import type { SemaphoreUseCases } from "../usecases/semaphore-usecases.js";
import { notServed } from "../errors/not-served.js";

function callerOf(ctx: Context & { principal: TenantPrincipal }): LockCaller {
  return { principal: ctx.principal, clientId: ctx.request.clientId };
}

function useCases(ctx: Context): SemaphoreUseCases {
  const ops = ctx.services.semaphoreUseCases;
  if (!ops) throw notServed("semaphores");
  return ops;
}

/**
 * The semaphore calls (docs/decisions/0161): thin adapters over
 * `services.semaphoreUseCases`, with the lock calls' authentication and tenant rules (a
 * tenant API key; another tenant's resource is UNKNOWN_RESOURCE). The SDK's lock socket
 * calls them by path (`semaphore.acquire`, …).
 */
export const semaphoreRouter = router({
  /** Grants `permits` (default 1) of the key's total to this client's `ownerId`, or says how full it is. */
  acquire: tenantProcedure
    .input(semaphoreAcquireInputSchema)
    .mutation(({ ctx, input, signal }) =>
      useCases(ctx).acquire(
        callerOf(ctx),
        input,
        signal ? AbortSignal.any([signal, ctx.request.signal]) : ctx.request.signal,
      ),
    ),

  /** Releases the permit grant `lockId`. */
  release: tenantProcedure
    .input(semaphoreReleaseInputSchema)
    .mutation(({ ctx, input }) => useCases(ctx).release(callerOf(ctx), input)),

  /** Renews the permit grant `lockId` to `leaseMs` from now (default: the resource's defaultLeaseMs). */
  extend: tenantProcedure
    .input(semaphoreExtendInputSchema)
    .mutation(({ ctx, input }) => useCases(ctx).extend(callerOf(ctx), input)),

  /** The live permits of a key on every reachable tier. */
  inspect: tenantProcedure
    .input(semaphoreKeyInputSchema)
    .query(({ ctx, input }) => useCases(ctx).inspect(callerOf(ctx), input)),
});
