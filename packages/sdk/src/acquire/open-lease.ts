import { LeaseLostError, NotHolderError, OutcomeUnknownError } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import type { LeaseBackend, LeaseFacts } from "../lease/lease-facts.js";
import { Lease, type LeaseLifecycle, type LeaseStart } from "../lease/lease.js";
import { monotonicNow } from "../time/monotonic.js";
import type { GrantReply } from "./remote-attempt.js";

/** A grant from the server, ready to become a lease. */
export interface RemoteGrant {
  readonly facts: LeaseFacts;
  readonly grant: GrantReply;
  readonly sentAt: number;
  /** The lease asked for (undefined: the resource's default). */
  readonly leaseMs: number | undefined;
}

/**
 * Turns a server grant into a lease (or joins the live lease it re-entered). A grant that
 * arrived after a wait longer than a third of its lease is confirmed by an immediate
 * renewal first: the client's deadline is measured from when a request was SENT, and the
 * acquire was sent long before the grant was made.
 *
 * @throws LeaseLostError - the grant was gone before it could be confirmed.
 * @throws OutcomeUnknownError - the confirmation got no answer (released in the background).
 */
export async function openRemoteLease(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  granted: RemoteGrant,
): Promise<Lease> {
  const { facts, grant, leaseMs } = granted;
  const live = ctx.registry.byId(facts.lockId);
  if (live?.status === "held") return live;
  const nominalMs = leaseMs ?? grant.ttlMs;
  let start: LeaseStart = {
    sentAt: granted.sentAt,
    ttlMs: grant.ttlMs,
    expiresAt: grant.expiresAt,
    leaseMs,
    maxRenewals: grant.maxRenewals,
    safetyMarginMs: ctx.options.safetyMarginMs,
  };
  const canRenew = grant.maxRenewals === null || grant.maxRenewals > 0;
  if (monotonicNow() - granted.sentAt > nominalMs / 3 && canRenew) {
    const sentAt = monotonicNow();
    try {
      const renewed = await ctx.remote.extend(facts, leaseMs);
      start = { ...start, sentAt, ttlMs: renewed.ttlMs, expiresAt: renewed.expiresAt, renewals: 1 };
    } catch (error) {
      if (error instanceof NotHolderError) {
        throw new LeaseLostError(
          facts.lockId,
          "granted after a long wait but lost before it was confirmed",
          {
            cause: error,
          },
        );
      }
      ctx.cleanup.releaseLater(facts, nominalMs);
      throw new OutcomeUnknownError(facts.lockId, "acquire", { cause: error });
    }
  }
  return registerLease(ctx, lifecycle, facts, start, ctx.remote);
}

/** Records a new lease with the registry and the local-mode tracker. */
export function registerLease(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  facts: LeaseFacts,
  start: LeaseStart,
  backend: LeaseBackend,
): Lease {
  const lease = new Lease(facts, start, backend, lifecycle);
  ctx.registry.add(lease);
  ctx.localMode.started(lease.tier);
  return lease;
}
