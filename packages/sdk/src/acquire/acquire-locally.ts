import { LockUnavailableError } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import type { Lease, LeaseLifecycle } from "../lease/lease.js";
import type { ResolvedAcquire } from "../options/resolve-acquire-options.js";
import type { KnownPolicy } from "../policy/policy-cache.js";
import { localAttempt } from "./local-attempt.js";
import { registerLease } from "./open-lease.js";

/**
 * The policy under which `resource` may get an in-process lock while the server is
 * unreachable, or the `LockUnavailableError` that says why not (docs/design.md#fail-closed: a
 * policy this client never learnt counts as `deny`).
 */
export function localPolicy(
  ctx: ClientContext,
  resource: string,
  cause: unknown,
): KnownPolicy | LockUnavailableError {
  const policy = ctx.policies.get(resource);
  if (!ctx.options.localFallback) {
    return new LockUnavailableError(
      "the Warden server is unreachable and this client does not make local locks",
      { cause, reason: "server-unreachable" },
    );
  }
  if (!policy) {
    return new LockUnavailableError(
      `the Warden server is unreachable and the policy of ${resource} is unknown to this client: failing closed (list it in createWarden's resources to know it in advance)`,
      { cause, reason: "server-unreachable" },
    );
  }
  if (policy.localFallback !== "allow") {
    return new LockUnavailableError(
      `the Warden server is unreachable and ${resource} does not allow local locks (localFallback: deny)`,
      { cause, reason: "server-unreachable" },
    );
  }
  return policy;
}

/** An in-process lock (`tier: "local"`, no fence), waiting until `deadline`; null when not granted. */
export async function acquireLocally(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  request: ResolvedAcquire,
  ownerId: string,
  deadline: number,
  policy: KnownPolicy,
): Promise<{ lease: Lease; ownerId: string } | null> {
  const { resource, businessKey } = request;
  const leaseMs = request.leaseMs ?? policy.defaultLeaseMs;
  const local = await localAttempt(ctx, {
    resource,
    businessKey,
    ownerId,
    leaseMs,
    deadline,
    signal: request.signal,
  });
  if (!local) return null;
  const { grant, sentAt } = local;
  const lease = registerLease(
    ctx,
    lifecycle,
    { resource, businessKey, ownerId, lockId: grant.lockId, fence: null, tier: "local" },
    {
      sentAt,
      ttlMs: grant.ttlMs,
      expiresAt: grant.expiresAt,
      leaseMs,
      maxRenewals: policy.maxRenewals,
      safetyMarginMs: ctx.options.safetyMarginMs,
    },
    ctx.local,
  );
  return { lease, ownerId };
}
