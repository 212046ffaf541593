import type { Holder, Tier } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { monotonicNow } from "../time/monotonic.js";
import { classifyFailure, type CallFailure } from "../transport/map-error.js";
import { clientClosed, newWaitId, withdrawWait } from "./withdrawable-wait.js";

/** A grant as `lock.acquire` returns it. */
export interface GrantReply {
  readonly lockId: string;
  readonly fence: string | null;
  readonly tier: Tier;
  /** Store clock, ms since the Unix epoch. */
  readonly expiresAt: number;
  readonly ttlMs: number;
  readonly reentry: number;
  readonly maxRenewals: number | null;
}

/** How one server acquire ended. */
export type RemoteAttempt =
  | { readonly kind: "granted"; readonly grant: GrantReply; readonly sentAt: number }
  | { readonly kind: "refused"; readonly holder: Holder; readonly ttlMs: number }
  | { readonly kind: "failed"; readonly failure: CallFailure }
  /** The caller's signal aborted before anything was sent, or the wait was withdrawn. */
  | { readonly kind: "aborted" };

/** `lock.acquire`'s input as this module sends it. */
interface AcquireWire {
  resource: string;
  businessKey: string;
  ownerId: string;
  waitMs: number;
  leaseMs?: number;
  waitId?: string;
  watch?: true;
}

/** One acquire as sent to the server. */
export interface RemoteAttemptRequest {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly leaseMs: number | undefined;
  readonly waitMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Sends one `lock.acquire`; with `waitMs > 0` the server queues it and wakes it on
 * release. When the caller's signal aborts, the wait is withdrawn with `lock.cancelWait`
 * and the answer still awaited: a grant that crossed the cancel is returned, so the
 * caller can release it, never dropped.
 */
export async function remoteAttempt(
  ctx: ClientContext,
  request: RemoteAttemptRequest,
): Promise<RemoteAttempt> {
  const { signal } = request;
  if (signal?.aborted) return { kind: "aborted" };
  // A retry after close() began is not sent (close waits for the acquires in flight).
  if (ctx.closing) return { kind: "failed", failure: { kind: "answer", error: clientClosed() } };
  const waitId = request.waitMs > 0 ? newWaitId() : undefined;
  // A try asks the server to watch the key if refused, for the short-circuit.
  const watch = request.waitMs === 0 && ctx.shortCircuit.enabledFor(request.resource);
  // Built in place: the optional fields are set only when they have a value, without the
  // temporary objects of conditional spreads (one lock call, one object).
  const input: AcquireWire = {
    resource: request.resource,
    businessKey: request.businessKey,
    ownerId: request.ownerId,
    waitMs: request.waitMs,
  };
  if (request.leaseMs !== undefined) input.leaseMs = request.leaseMs;
  if (waitId !== undefined) input.waitId = waitId;
  if (watch) input.watch = true;
  let sentAt: number | null = null;
  let settled = false;
  const onAbort = () => {
    if (waitId !== undefined && sentAt !== null) void withdrawWait(ctx, waitId, () => settled);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  // close() withdraws the waits in flight too.
  const unregister = waitId === undefined ? null : ctx.acquiring.waiting(onAbort);
  try {
    const reply = await ctx.connection.call(
      (api, call) => {
        sentAt = monotonicNow();
        return api.lock.acquire.mutate(input, call);
      },
      request.waitMs + ctx.options.requestTimeoutMs,
      signal,
    );
    ctx.serverTier = reply.currentTier;
    if (!reply.granted) {
      if (watch && (reply as { watch?: unknown }).watch === true) {
        const { resource, businessKey } = request;
        ctx.shortCircuit.remember(resource, businessKey, reply.holder, reply.ttlMs, sentAt!);
      }
      return { kind: "refused", holder: reply.holder, ttlMs: reply.ttlMs };
    }
    return { kind: "granted", grant: reply, sentAt: sentAt ?? monotonicNow() };
  } catch (error) {
    if (sentAt === null && signal?.aborted) return { kind: "aborted" };
    const failure = classifyFailure(error, {
      operation: "acquire",
      resource: request.resource,
      waitMs: request.waitMs,
    });
    if (failure.kind === "wait-cancelled" && signal?.aborted) return { kind: "aborted" };
    return { kind: "failed", failure };
  } finally {
    settled = true;
    signal?.removeEventListener("abort", onAbort);
    unregister?.();
  }
}
