import type { AcquireResult } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { monotonicNow } from "../time/monotonic.js";

/** One acquire in this process's local store. */
export interface LocalAttemptRequest {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly leaseMs: number;
  /** Monotonic instant the caller stops waiting. */
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
}

/** A local grant and when it was asked for. */
export interface LocalGrant {
  readonly grant: Extract<AcquireResult, { granted: true }>;
  readonly sentAt: number;
}

/**
 * Acquires in the local store, waiting (woken by local releases, never polling faster
 * than the holder's remaining lease) until `deadline`. Null when the deadline passed.
 *
 * @throws the signal's reason when it aborts.
 */
export async function localAttempt(
  ctx: ClientContext,
  request: LocalAttemptRequest,
): Promise<LocalGrant | null> {
  const { resource, businessKey, ownerId, leaseMs, deadline, signal } = request;
  for (;;) {
    signal?.throwIfAborted();
    const sentAt = monotonicNow();
    const result = await ctx.localStore.acquire({
      resource,
      businessKey,
      holder: { clientId: ctx.options.clientId, ownerId },
      leaseMs,
    });
    if (result.granted) return { grant: result, sentAt };
    const leftMs = deadline - monotonicNow();
    if (leftMs <= 0) return null;
    await ctx.localWaits.next(resource, businessKey, Math.min(leftMs, result.ttlMs + 1), signal);
  }
}

/**
 * Waits while a local lease of the key is held by another owner of this process: the
 * server cannot see local leases, so without this an in-process holder from an outage
 * would not exclude a new holder once the server is back. False when `deadline` passed.
 *
 * @throws the signal's reason when it aborts.
 */
export async function waitForLocalHolders(
  ctx: ClientContext,
  request: Omit<LocalAttemptRequest, "leaseMs">,
): Promise<boolean> {
  const { resource, businessKey, ownerId, deadline, signal } = request;
  for (;;) {
    signal?.throwIfAborted();
    const lease = await ctx.localStore.inspect({ resource, businessKey });
    if (!lease || lease.holder.ownerId === ownerId) return true;
    const leftMs = deadline - monotonicNow();
    if (leftMs <= 0) return false;
    await ctx.localWaits.next(resource, businessKey, Math.min(leftMs, lease.ttlMs + 1), signal);
  }
}
