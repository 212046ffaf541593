import { randomBytes } from "node:crypto";
import { LockUnavailableError } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { sleep } from "../time/timers.js";
import type { ApiClient, CallOptions } from "../transport/api-client.js";
import { classifyFailure, failureToError } from "../transport/map-error.js";

// cancelWait can reach the server before the acquire it withdraws; try a few times.
const CANCEL_ATTEMPTS = 20;

/**
 * Withdraws the wait sent with `waitId` (`lock.cancelWait`, any kind of acquire), retrying
 * while the acquire has not settled: the cancel may arrive before the acquire it names.
 */
export async function withdrawWait(
  ctx: ClientContext,
  waitId: string,
  settled: () => boolean,
): Promise<void> {
  for (let attempt = 0; attempt < CANCEL_ATTEMPTS && !settled(); attempt++) {
    try {
      const { cancelled } = await ctx.connection.call(
        (api, call) => api.lock.cancelWait.mutate({ waitId }, call),
        ctx.options.requestTimeoutMs,
      );
      if (cancelled) return;
    } catch {
      // No connection: the server ends the waits of a closed connection by itself.
      return;
    }
    await sleep(fullJitterDelayMs(attempt, 50, 1_000));
  }
}

/** A new waitId: random, so it says nothing about the caller. */
export function newWaitId(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * Sends one server-side waiting acquire (`waitMs > 0`) that `signal` may give up: the
 * acquire carries a waitId, an abort withdraws it, and the answer is still awaited — the
 * server's WAIT_CANCELLED becomes the signal's reason; a grant that crossed the cancel is
 * returned, and the caller must release it and throw the reason (see {@link abortedAfter}).
 */
export async function withdrawableQuery<T>(
  ctx: ClientContext,
  request: { readonly waitMs: number; readonly signal: AbortSignal | undefined },
  run: (waitId: string | undefined) => (api: ApiClient, call: CallOptions) => Promise<T>,
  operation: string,
  resource: string,
): Promise<T> {
  const { signal } = request;
  signal?.throwIfAborted();
  if (ctx.closing) throw clientClosed();
  // Every wait carries a waitId: close() withdraws the waits in flight, signal or not.
  const waitId = request.waitMs > 0 ? newWaitId() : undefined;
  let settled = false;
  const onAbort = () => {
    if (waitId !== undefined) void withdrawWait(ctx, waitId, () => settled);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const unregister = waitId === undefined ? null : ctx.acquiring.waiting(onAbort);
  try {
    return await ctx.connection.call(run(waitId), ctx.options.requestTimeoutMs);
  } catch (error) {
    const context = { operation, resource };
    const failure = classifyFailure(error, context);
    if (failure.kind === "wait-cancelled" && signal?.aborted) throw signal.reason;
    if (failure.kind === "wait-cancelled" && ctx.closing) throw clientClosed();
    throw failureToError(failure, context);
  } finally {
    settled = true;
    signal?.removeEventListener("abort", onAbort);
    unregister?.();
  }
}

/**
 * After a grant: when `signal` aborted or the client began to close while it was on its
 * way, releases `held` in the background (a grant is released, never dropped; close()
 * waits for that release) and throws the signal's reason or the client's closing.
 */
export function abortedAfter(
  ctx: ClientContext,
  signal: AbortSignal | undefined,
  held: { release(): Promise<unknown> },
): void {
  if (!signal?.aborted && !ctx.closing) return;
  ctx.acquiring.releaseInBackground(held.release());
  throw signal?.aborted ? signal.reason : clientClosed();
}

/** What an acquire of a client that is closing answers. */
export function clientClosed(): LockUnavailableError {
  return new LockUnavailableError("the Warden client is closed", { reason: "client-closed" });
}
