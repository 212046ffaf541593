import { InvalidArgumentError, LeaseLostError, NotHolderError } from "@warden/core";
import { auditRecord } from "../audit/audit-record.js";
import type { Context } from "../context.js";
import {
  acquireInputSchema,
  cancelWaitInputSchema,
  extendInputSchema,
  lockKeyInputSchema,
  releaseInputSchema,
  staleFenceReportSchema,
} from "../schemas/lock.js";
import { tierSchema } from "../schemas/common.js";
import { recordRenewalRefused } from "../locks/renewal-refused.js";
import { router, tenantProcedure } from "../trpc.js";

const releaseInput = releaseInputSchema.extend({ tier: tierSchema });
const extendInput = extendInputSchema.extend({ tier: tierSchema });

function clientIdOf(ctx: Context): string {
  const clientId = ctx.request.clientId;
  if (clientId === null || clientId.length === 0 || clientId.length > 128) {
    throw new InvalidArgumentError(
      "clientId",
      "identify the SDK instance: x-warden-client-id header or WebSocket connectionParams.clientId (1..128 characters)",
    );
  }
  return clientId;
}

/**
 * The SDK's hot path. Every answer carries `currentTier`, the tier this server grants on
 * now; grants also say which tier made them (`tier`), which release and extend send back.
 */
export const lockRouter = router({
  /** Grants `(resource, businessKey)` to this client's `ownerId`, or says who holds it. */
  acquire: tenantProcedure.input(acquireInputSchema).mutation(async ({ ctx, input, signal }) => {
    const { services } = ctx;
    const resource = await services.registry.resolve(input.resource, ctx.principal);
    const result = await services.lockService.acquire({
      principal: ctx.principal,
      resource,
      businessKey: input.businessKey,
      holder: { clientId: clientIdOf(ctx), ownerId: input.ownerId },
      leaseMs: input.leaseMs,
      waitMs: input.waitMs ?? 0,
      waitId: input.waitId ?? null,
      // Only a wait listens to the signal; composing one per call costs more than a grant.
      signal:
        signal && (input.waitMs ?? 0) > 0
          ? AbortSignal.any([signal, ctx.request.signal])
          : ctx.request.signal,
    });
    const currentTier = services.locks.tier;
    if (!result.granted) {
      return {
        granted: false as const,
        holder: result.holder,
        ttlMs: result.ttlMs,
        tier: result.tier,
        currentTier,
      };
    }
    return {
      granted: true as const,
      lockId: result.lockId,
      fence: result.fence,
      tier: result.tier,
      expiresAt: result.expiresAt,
      ttlMs: result.ttlMs,
      reentry: result.reentry,
      maxRenewals: resource.maxRenewals,
      currentTier,
    };
  }),

  /** Releases one entry of the grant `lockId`; the key is free when `released`. */
  release: tenantProcedure.input(releaseInput).mutation(async ({ ctx, input }) => {
    const { services } = ctx;
    await services.registry.get(input.resource, ctx.principal);
    try {
      const result = await services.locks.release(input);
      services.metrics.releases.inc({
        resource: input.resource,
        outcome: result.released ? "released" : "reentry-left",
      });
      services.logger.debug(
        {
          op: "release",
          resource: input.resource,
          businessKey: input.businessKey,
          lockId: input.lockId,
          fence: services.tracker.get(input.lockId)?.fence ?? null,
          released: result.released,
        },
        "lock released",
      );
      return {
        released: result.released,
        reentry: result.reentry,
        currentTier: services.locks.tier,
      };
    } catch (error) {
      if (error instanceof NotHolderError)
        services.metrics.releases.inc({ resource: input.resource, outcome: "not-holder" });
      throw error;
    }
  }),

  /** Renews the grant `lockId` to `leaseMs` from now (default: the resource's defaultLeaseMs). */
  extend: tenantProcedure.input(extendInput).mutation(async ({ ctx, input }) => {
    const { services } = ctx;
    const resource = await services.registry.resolve(input.resource, ctx.principal);
    const leaseMs = input.leaseMs ?? resource.defaultLeaseMs;
    if (leaseMs > resource.maxLeaseMs) {
      throw new InvalidArgumentError(
        "leaseMs",
        `must be at most ${resource.maxLeaseMs} ms for ${resource.name}`,
      );
    }
    // Counted by the instance that saw the grant (the SDK also stops at maxRenewals).
    const renewals = services.tracker.get(input.lockId)?.renewals ?? 0;
    if (resource.maxRenewals !== null && renewals >= resource.maxRenewals) {
      recordRenewalRefused(services, {
        ...input,
        tenantId: ctx.principal.tenantId,
        reason: "renewal-limit",
      });
      throw new LeaseLostError(
        input.lockId,
        `renewal limit of ${resource.maxRenewals} reached; the lease runs out`,
      );
    }
    try {
      const lease = await services.locks.extend({ ...input, leaseMs });
      services.logger.debug(
        {
          op: "extend",
          resource: lease.resource,
          businessKey: lease.businessKey,
          lockId: lease.lockId,
          fence: lease.fence,
          leaseMs,
        },
        "lock extended",
      );
      return { ...lease, currentTier: services.locks.tier };
    } catch (error) {
      if (error instanceof NotHolderError) {
        recordRenewalRefused(services, {
          ...input,
          tenantId: ctx.principal.tenantId,
          reason: error.reason,
        });
      }
      throw error;
    }
  }),

  /** The live lease of a key in any reachable tier, or null. */
  inspect: tenantProcedure.input(lockKeyInputSchema).query(async ({ ctx, input }) => {
    const { services } = ctx;
    await services.registry.get(input.resource, ctx.principal);
    const lease = await services.locks.inspect(input);
    return { lease, currentTier: services.locks.tier };
  }),

  /** Withdraws a blocking acquire sent with `waitId`; `cancelled` is false when it had ended. */
  cancelWait: tenantProcedure.input(cancelWaitInputSchema).mutation(({ ctx, input }) => ({
    cancelled: ctx.services.waiters.cancel(input.waitId, ctx.principal.tenantId),
    currentTier: ctx.services.locks.tier,
  })),

  /** An SDK fence guard refused a stale write: audited and counted (never retried). */
  reportStaleFence: tenantProcedure
    .input(staleFenceReportSchema)
    .mutation(async ({ ctx, input }) => {
      const { services } = ctx;
      await services.registry.get(input.resource, ctx.principal);
      services.metrics.staleFenceRejections.inc({ resource: input.resource });
      services.hub.record(
        auditRecord({
          type: "stale-fence",
          tenantId: ctx.principal.tenantId,
          resource: input.resource,
          businessKey: input.businessKey,
          lockId: input.lockId ?? null,
          fence: input.fence,
          clientId: ctx.request.clientId,
          ownerId: input.ownerId ?? null,
          reason: `stale fence ${input.fence}${input.currentFence ? ` < recorded ${input.currentFence}` : ""}${input.target ? ` at ${input.target}` : ""}`,
          at: Date.now(),
        }),
      );
      services.logger.warn(
        {
          op: "stale-fence",
          resource: input.resource,
          businessKey: input.businessKey,
          lockId: input.lockId ?? null,
          fence: input.fence,
          currentFence: input.currentFence ?? null,
        },
        "stale fence rejected at the resource",
      );
      return { recorded: true, currentTier: services.locks.tier };
    }),
});
