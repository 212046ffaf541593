import { LockTimeoutError, OutcomeUnknownError, UnknownResourceError } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import type { LeaseFacts } from "../lease/lease-facts.js";
import type { Lease, LeaseLifecycle } from "../lease/lease.js";
import type { ResolvedAcquire } from "../options/resolve-acquire-options.js";
import { ambientOwner, newOwnerId } from "../owner/owner-scope.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { monotonicNow } from "../time/monotonic.js";
import { sleep } from "../time/timers.js";
import { grantAttributes, keyAttributes, traced } from "../telemetry/tracing.js";
import { acquireLocally, localPolicy } from "./acquire-locally.js";
import { waitForLocalHolders } from "./local-attempt.js";
import { openRemoteLease } from "./open-lease.js";
import { remoteAttempt } from "./remote-attempt.js";
import { clientClosed } from "./withdrawable-wait.js";

/** A lease and the owner it was acquired for; null when not granted in time (tryAcquire). */
export type Acquired = { readonly lease: Lease; readonly ownerId: string } | null;

// Retries after a definite refusal that is not "held" (the server withdrew the wait while
// shutting down, the tenant ran over its quota): capped exponential backoff, full jitter.
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 5_000;

/**
 * The acquire algorithm: re-enter a lease the same owner holds; else wait out in-process
 * (local) holders of the key, then ask the server, which waits and wakes on release; on a
 * definite refusal retry with backoff while time is left. With no server to ask, fall back
 * to a local lock if the resource's policy allows it; otherwise keep trying the server
 * (backoff) until `waitMs` runs out, then fail closed. An unknown outcome is reported as
 * such and cleaned up in the background, never retried (docs/design.md#no-replay-no-guess).
 */
export function acquireLock(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  request: ResolvedAcquire,
  mode: "wait" | "try",
): Promise<Acquired> {
  // One `warden.acquire` span for the whole call, its waits and retries included; the
  // server's spans of the commands it sends are its children.
  return traced(
    "warden.acquire",
    () => ({
      ...keyAttributes(request.resource, request.businessKey),
      "warden.mode": mode,
      "warden.wait_ms": request.waitMs,
    }),
    () => acquireUntraced(ctx, lifecycle, request, mode),
    (acquired, span) => {
      if (acquired)
        span.setAttributes({ ...grantAttributes(acquired.lease), "warden.outcome": "granted" });
      else span.setAttribute("warden.outcome", "refused");
    },
    (error) => (error instanceof LockTimeoutError ? "timeout" : "error"),
  );
}

async function acquireUntraced(
  ctx: ClientContext,
  lifecycle: LeaseLifecycle,
  request: ResolvedAcquire,
  mode: "wait" | "try",
): Promise<Acquired> {
  if (ctx.closing) throw clientClosed();
  const { resource, businessKey, signal } = request;
  const ownerId = request.ownerId ?? ambientOwner(ctx.owner) ?? newOwnerId();
  const held = ctx.registry.heldBy(resource, businessKey, ownerId);
  if (held) return { lease: held, ownerId };
  signal?.throwIfAborted();
  // Seen held by someone else a moment ago and not freed since: refused without a round trip.
  if (
    mode === "try" &&
    ctx.shortCircuit.refuse(resource, businessKey, ctx.options.clientId, ownerId)
  ) {
    // Answered after the event loop's I/O, never in the same microtask run: a caller
    // retrying in a loop would otherwise starve every socket of the process — the
    // holder's release and the server's release notice included — and never be granted.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return null;
  }
  const end = ctx.acquiring.begin(resource, businessKey, ownerId);
  try {
    const deadline = monotonicNow() + request.waitMs;
    for (let retry = 0; ; retry++) {
      // An empty local store has no holder to wait for: no promise on the common path.
      const free =
        ctx.localStore.empty ||
        (await waitForLocalHolders(ctx, { resource, businessKey, ownerId, deadline, signal }));
      if (!free) return notGranted(request, mode);
      const waitMs = Math.max(0, Math.floor(deadline - monotonicNow()));
      const attempt = await remoteAttempt(ctx, { ...request, ownerId, waitMs });
      switch (attempt.kind) {
        case "granted": {
          const facts = factsOf(request, ownerId, attempt.grant);
          if (signal?.aborted || ctx.closing) {
            // Granted as the caller gave up or the client began to close: the grant is
            // released, never dropped, and close() waits for that release.
            ctx.acquiring.releaseInBackground(ctx.remote.release(facts));
            throw signal?.aborted ? signal.reason : clientClosed();
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
        case "not-sent": {
          const policy = localPolicy(ctx, resource, failure.cause);
          if (!(policy instanceof Error)) {
            const local = await acquireLocally(ctx, lifecycle, request, ownerId, deadline, policy);
            return local ?? notGranted(request, mode);
          }
          // No local lock for this resource: wait for the server while the caller waits.
          const leftMs = deadline - monotonicNow();
          if (leftMs <= 0 || ctx.closing) throw policy;
          await sleep(
            Math.min(leftMs, fullJitterDelayMs(retry, RETRY_BASE_MS, RETRY_CAP_MS)),
            signal,
          );
          break;
        }
        case "unknown":
          ctx.cleanup.findOrphan(resource, businessKey, ownerId);
          throw new OutcomeUnknownError("unknown", "acquire", { cause: failure.cause });
        case "answer":
          if (failure.error instanceof LockTimeoutError) return notGranted(request, mode);
          if (failure.error instanceof UnknownResourceError) ctx.policies.forget(resource);
          throw failure.error;
        case "wait-cancelled":
        case "retry-later": {
          if (ctx.closing) throw clientClosed();
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
