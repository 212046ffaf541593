import {
  LockTimeoutError,
  LockUnavailableError,
  OutcomeUnknownError,
  UnknownResourceError,
} from "@warden/core";
import type { ClientContext } from "../client/client-context.js";
import type { LeaseFacts } from "../lease/lease-facts.js";
import type { Lease, LeaseLifecycle } from "../lease/lease.js";
import type { ResolvedAcquire } from "../options/resolve-acquire-options.js";
import { ambientOwner, newOwnerId } from "../owner/owner-scope.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { monotonicNow } from "../time/monotonic.js";
import { sleep } from "../time/timers.js";
import type { CallFailure } from "../transport/map-error.js";
import { localAttempt, waitForLocalHolders } from "./local-attempt.js";
import { openRemoteLease, registerLease } from "./open-lease.js";
import { remoteAttempt } from "./remote-attempt.js";

/** A lease and the owner it was acquired for; null when not granted in time (tryAcquire). */
export type Acquired = { readonly lease: Lease; readonly ownerId: string } | null;

// Retries after a definite refusal that is not "held" (the server withdrew the wait while
// shutting down, the tenant ran over its quota): capped exponential backoff, full jitter.
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 5_000;

/**
 * The acquire algorithm: re-enter a lease the same owner holds; else wait out in-process
 * (local) holders of the key, then ask the server, which waits and wakes on release; on a
 * definite refusal retry with backoff while time is left; with no server to ask, fall back
 * to a local lock if the resource's policy allows it, else fail closed. An unknown
 * outcome is reported as such and cleaned up in the background, never retried (S8).
 */
export async function acquireLock(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  request: ResolvedAcquire,
  mode: "wait" | "try",
): Promise<Acquired> {
  if (ctx.closing) throw new LockUnavailableError("the Warden client is closed");
  const { resource, businessKey, signal } = request;
  const ownerId = request.ownerId ?? ambientOwner(ctx.owner) ?? newOwnerId();
  const held = ctx.registry.heldBy(resource, businessKey, ownerId);
  if (held) return { lease: held, ownerId };
  signal?.throwIfAborted();
  const end = ctx.acquiring.begin(resource, businessKey, ownerId);
  try {
    const deadline = monotonicNow() + request.waitMs;
    for (let retry = 0; ; retry++) {
      const free = await waitForLocalHolders(ctx, {
        resource,
        businessKey,
        ownerId,
        deadline,
        signal,
      });
      if (!free) return notGranted(request, mode);
      const waitMs = Math.max(0, Math.floor(deadline - monotonicNow()));
      const attempt = await remoteAttempt(ctx, { ...request, ownerId, waitMs });
      switch (attempt.kind) {
        case "granted": {
          const facts = factsOf(request, ownerId, attempt.grant);
          if (signal?.aborted) {
            // Granted as the caller gave up: the grant is released, never dropped.
            void ctx.remote.release(facts);
            throw signal.reason;
          }
          ctx.policies.refreshSoon(resource);
          const lease = await openRemoteLease(ctx, lifecycle, {
            facts,
            grant: attempt.grant,
            sentAt: attempt.sentAt,
            leaseMs: request.leaseMs,
          });
          return { lease, ownerId };
        }
        case "refused":
          return notGranted(request, mode);
        case "aborted":
          throw signal?.reason;
        case "failed":
          break;
      }
      const { failure } = attempt;
      switch (failure.kind) {
        case "not-sent":
          return await acquireLocally(ctx, lifecycle, request, ownerId, deadline, failure, mode);
        case "unknown":
          ctx.cleanup.findOrphan(resource, businessKey, ownerId);
          throw new OutcomeUnknownError("unknown", "acquire", { cause: failure.cause });
        case "answer":
          if (failure.error instanceof LockTimeoutError) return notGranted(request, mode);
          if (failure.error instanceof UnknownResourceError) ctx.policies.forget(resource);
          throw failure.error;
        case "wait-cancelled":
        case "retry-later": {
          const leftMs = deadline - monotonicNow();
          if (leftMs <= 0) {
            if (failure.kind === "retry-later") throw failure.error;
            return notGranted(request, mode);
          }
          const backoffMs = fullJitterDelayMs(retry, RETRY_BASE_MS, RETRY_CAP_MS);
          const floorMs = failure.kind === "retry-later" ? failure.retryAfterMs : 0;
          await sleep(Math.min(leftMs, Math.max(floorMs, backoffMs)), signal);
          break;
        }
      }
    }
  } finally {
    end();
  }
}

function notGranted(request: ResolvedAcquire, mode: "wait" | "try"): null {
  if (mode === "try") return null;
  throw new LockTimeoutError(request.waitMs);
}

function factsOf(
  request: ResolvedAcquire,
  ownerId: string,
  grant: { lockId: string; fence: string | null; tier: LeaseFacts["tier"] },
): LeaseFacts {
  return {
    resource: request.resource,
    businessKey: request.businessKey,
    ownerId,
    lockId: grant.lockId,
    fence: grant.fence,
    tier: grant.tier,
  };
}

/** No server to ask: an in-process lock if the resource's known policy allows it (S5). */
async function acquireLocally(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  request: ResolvedAcquire,
  ownerId: string,
  deadline: number,
  failure: CallFailure,
  mode: "wait" | "try",
): Promise<Acquired> {
  const { resource } = request;
  const cause = failure.kind === "not-sent" ? failure.cause : undefined;
  const policy = ctx.policies.get(resource);
  if (!ctx.options.localFallback) {
    throw new LockUnavailableError(
      `the Warden server is unreachable and this client does not make local locks`,
      { cause },
    );
  }
  if (!policy) {
    throw new LockUnavailableError(
      `the Warden server is unreachable and the policy of ${resource} is unknown to this client: failing closed (list it in createWarden's resources to know it in advance)`,
      { cause },
    );
  }
  if (policy.localFallback !== "allow") {
    throw new LockUnavailableError(
      `the Warden server is unreachable and ${resource} does not allow local locks (localFallback: deny)`,
      { cause },
    );
  }
  const leaseMs = request.leaseMs ?? policy.defaultLeaseMs;
  const local = await localAttempt(ctx, {
    resource,
    businessKey: request.businessKey,
    ownerId,
    leaseMs,
    deadline,
    signal: request.signal,
  });
  if (!local) return notGranted(request, mode);
  const { grant, sentAt } = local;
  const lease = registerLease(
    ctx,
    lifecycle,
    {
      resource,
      businessKey: request.businessKey,
      ownerId,
      lockId: grant.lockId,
      fence: null,
      tier: "local",
    },
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
