import {
  acquireInputSchema,
  cancelWaitInputSchema,
  extendInputSchema,
  lockKeyInputSchema,
  releaseInputSchema,
  staleFenceReportSchema,
} from "@warden/contract/wire";
import { ForbiddenError } from "@warden/contract";
import { roleAtLeast, type TenantPrincipal } from "../auth/principal.js";
import type { Context } from "../context.js";
import { authedProcedure, router, tenantProcedure } from "../trpc.js";
import type { LockCaller } from "../usecases/index.js";
import { requestRevokeInputSchema } from "../usecases/request-revoke.js";

function callerOf(ctx: Context & { principal: TenantPrincipal }): LockCaller {
  return { principal: ctx.principal, clientId: ctx.request.clientId };
}

/**
 * The SDK's lock calls over tRPC: thin adapters over `services.lockUseCases`
 * (src/usecases/), which the batched lock protocol calls too. Every answer carries
 * `currentTier`, the tier this server grants on now; grants also say which tier made
 * them (`tier`), which release and extend send back.
 */
export const lockRouter = router({
  /** Grants `(resource, businessKey)` to this client's `ownerId`, or says who holds it. */
  acquire: tenantProcedure.input(acquireInputSchema).mutation(({ ctx, input, signal }) =>
    ctx.services.lockUseCases.acquire(
      callerOf(ctx),
      input,
      // Only a wait listens to the signal; composing one per call costs more than a grant.
      signal && (input.waitMs ?? 0) > 0
        ? AbortSignal.any([signal, ctx.request.signal])
        : ctx.request.signal,
    ),
  ),

  /** Releases one entry of the grant `lockId`; the key is free when `released`. */
  release: tenantProcedure
    .input(releaseInputSchema)
    .mutation(({ ctx, input }) => ctx.services.lockUseCases.release(callerOf(ctx), input)),

  /** Renews the grant `lockId` to `leaseMs` from now (default: the resource's defaultLeaseMs). */
  extend: tenantProcedure
    .input(extendInputSchema)
    .mutation(({ ctx, input }) => ctx.services.lockUseCases.extend(callerOf(ctx), input)),

  /** The live lease of a key in any reachable tier, or null. */
  inspect: tenantProcedure
    .input(lockKeyInputSchema)
    .query(({ ctx, input }) => ctx.services.lockUseCases.inspect(callerOf(ctx), input)),

  /** Withdraws a blocking acquire sent with `waitId`; `cancelled` is false when it had ended. */
  cancelWait: tenantProcedure
    .input(cancelWaitInputSchema)
    .mutation(({ ctx, input }) => ctx.services.lockUseCases.cancelWait(callerOf(ctx), input)),

  /**
   * Asks the holder of the key's live lease (or of grant `lockId`) to release it: its SDK's
   * `lock.onRevokeRequested` listeners run. Only a request (`holder.forceRelease` is for a
   * holder that will not). A tenant API key (any scope) asks about its own resources; an
   * operator needs the operator role, like force release (docs/decisions/0176).
   */
  requestRevoke: authedProcedure.input(requestRevokeInputSchema).mutation(({ ctx, input }) => {
    const { principal } = ctx;
    if (principal.kind === "operator" && !roleAtLeast(principal.role, "operator")) {
      throw new ForbiddenError("this call needs the operator role");
    }
    return ctx.services.requestRevoke({ principal, actor: ctx.actor }, input);
  }),

  /** An SDK fence guard refused a stale write: audited and counted (never retried). */
  reportStaleFence: tenantProcedure
    .input(staleFenceReportSchema)
    .mutation(({ ctx, input }) => ctx.services.lockUseCases.reportStaleFence(callerOf(ctx), input)),
});
