import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import {
  InvalidArgumentError,
  LockTimeoutError,
  LockUnavailableError,
  WaitCancelledError,
  type Holder,
} from "@warden/contract";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import { unlessItEndsTheWaitAfter } from "../locks/retry-soon.js";
import { sleepUntilWoken } from "../locks/sleep-until-woken.js";
import type { WaitQueues } from "../locks/wait-queues.js";
import type { ResourceView } from "../registry/resource-view.js";

// What the semaphore and read-write lock acquires share: the lease a call may ask for, how
// a failed acquire is counted, and the loop that waits for a grant.

/**
 * A waiting acquire tries again at least this often (a release on any instance wakes it at
 * once); also how long a fair semaphore waiter's place lives without a try.
 */
export const RETRY_MAX_MS = 1_000;

/** The lease a call gets: its own `leaseMs`, else the resource's default, never above its cap. */
export function leaseOf(resource: ResourceView, leaseMs: number | undefined): number {
  const lease = leaseMs ?? resource.defaultLeaseMs;
  if (lease > resource.maxLeaseMs) {
    throw new InvalidArgumentError(
      "leaseMs",
      `must be at most ${resource.maxLeaseMs} ms for ${resource.name}`,
    );
  }
  return lease;
}

/** How an acquire that threw is counted in the metrics and the console's statistics. */
export function failedOutcomeOf(error: unknown): "timeout" | "cancelled" | "unavailable" | "error" {
  if (error instanceof LockTimeoutError) return "timeout";
  if (error instanceof WaitCancelledError) return "cancelled";
  if (error instanceof LockUnavailableError) return "unavailable";
  return "error";
}

/** What {@link untilGranted} uses. */
export interface WaitDeps {
  /** Wakes a sleeping try when a grant of the key is released, here or on another instance. */
  readonly notifier: Pick<ReleaseNotifier, "onRelease">;
  /** The lock waiters' queues: a wait is listed there (holder.waiters) and ended by cancelAll. */
  readonly waiters?: Pick<WaitQueues, "enqueue" | "placed" | "remove">;
}

/** One acquire's wait, as the caller asked for it. */
export interface WaitRequest {
  readonly key: { readonly resource: string; readonly businessKey: string };
  readonly holder: Holder;
  readonly tenantId: string;
  /** 0: one try. */
  readonly waitMs: number;
  readonly waitId: string | null;
  /** Names the wait in the waiters' list; a random one when null. */
  readonly ref: string | null;
  /** Aborts the wait (the caller went away, the server is stopping). */
  readonly signal: AbortSignal;
}

/** A try's refusal: when it is worth trying again (0 when the store cannot say). */
export interface Refusal {
  readonly granted: false;
  readonly retryAfterMs: number;
}

/** A try's error that a wait goes on through: a refusal, and what ends the wait at its deadline. */
interface Failed extends Refusal {
  readonly endWith: Error | null;
}

/**
 * A try's error as a wait sees it: one the store made of a call that ran nowhere and may
 * pass soon (`ranNowhere` in locks/retry-soon.ts: `contended`, Redis unreachable, a Redis Cluster redirection)
 * is a refusal, and the wait goes on after the pause it names; so is an unknown outcome
 * after an earlier refusal, once the store's clean-up of the maybe-grant answered
 * ({@link unlessItEndsTheWaitAfter}, docs/decisions/0235), and the wait tries again at once.
 * Anything else, and every error of a try (`waitMs` 0), is rethrown: a try answers with the
 * error, whose reason tells its caller when to retry.
 */
async function busyUnlessFailed(
  error: unknown,
  waitMs: number,
  refusedBefore: boolean,
  deadline: number,
  signal: AbortSignal,
): Promise<Failed> {
  if (waitMs <= 0) throw error;
  const ran = await unlessItEndsTheWaitAfter(error, refusedBefore, deadline, signal);
  // A pause of 0 would read as "the store cannot say" (RETRY_MAX_MS): go on at once.
  return { granted: false, retryAfterMs: Math.max(ran.pauseMs, 1), endWith: ran.endWith };
}

/**
 * Calls `attempt` until it grants. A try (`waitMs` 0) returns its refusal. A wait is listed
 * with the lock waiters, sleeps between tries until a release of the key wakes it or the
 * refusal's `retryAfterMs` (at most {@link RETRY_MAX_MS}) has passed, and throws
 * `LockTimeoutError` when `waitMs` ends without a grant and `WaitCancelledError` when it is
 * cancelled or `signal` aborts. A wait takes a try the store refused as `contended`, that
 * was not sent to an unreachable Redis, or that Redis Cluster redirected until the client
 * gave up, for a refusal and goes on (`ranNowhere`); when `waitMs` runs out right after
 * one of the last two, the wait ends with its error rather than `LockTimeoutError`. After a
 * refusal, a try whose outcome was unknown is one too once the store's clean-up of it
 * answered (docs/decisions/0235). Any other error ends it. A listed wait hears
 * releases from its start, so one that lands while a try is out is not missed; without
 * `waiters` it hears them only while asleep.
 * A grant made after `signal` aborted (the caller's connection closed while the store was
 * granting) could reach nobody: it is given to `release` and the acquire throws
 * `WaitCancelledError` instead of holding the key for a lease (docs/decisions/0216).
 */
export async function untilGranted<T extends { readonly granted: true } | Refusal>(
  deps: WaitDeps,
  request: WaitRequest,
  attempt: () => Promise<T>,
  release: (grant: Exclude<T, Refusal>) => Promise<unknown>,
): Promise<T> {
  const { key, waitMs } = request;
  const deadline = performance.now() + waitMs;
  // A try never waits: it gets no controller of its own (two allocations and a listener
  // per call) and no listener on the key.
  const cancel = waitMs > 0 ? new AbortController() : null;
  const ended = cancel ? AbortSignal.any([request.signal, cancel.signal]) : request.signal;
  let woken = false;
  const remember = () => {
    woken = true;
  };
  let wake: () => void = remember;
  const waiter =
    waitMs > 0 && deps.waiters
      ? deps.waiters.enqueue({
          ref: request.ref ?? randomBytes(12).toString("base64url"),
          fair: false,
          key,
          holder: request.holder,
          waitId: request.waitId,
          tenantId: request.tenantId,
          wake: () => wake(),
          cancel: () => cancel?.abort(),
        })
      : null;
  const unsubscribe = waiter ? deps.notifier.onRelease(key, () => wake()) : () => undefined;
  // Whether a try of this wait was refused: a later try is then no re-entry of a read or
  // write lock already held (see unlessItEndsTheWaitAfter).
  let refusedBefore = false;
  try {
    for (;;) {
      woken = false;
      const result = await attempt().catch((error: unknown) =>
        busyUnlessFailed(error, waitMs, refusedBefore, deadline, ended),
      );
      if (result.granted) {
        if (!request.signal.aborted) return result;
        // A release that fails leaves the grant to run out, as before this check.
        await release(result as Exclude<T, Refusal>).catch(() => undefined);
        throw new WaitCancelledError(request.waitId);
      }
      if (!("endWith" in result)) refusedBefore = true;
      const { retryAfterMs } = result;
      const leftMs = deadline - performance.now();
      if (leftMs <= 0) {
        if (waitMs > 0)
          throw ("endWith" in result && result.endWith) || new LockTimeoutError(waitMs);
        // A try's refusal is the store's own: only a wait turns `contended` into a refusal.
        return result as T;
      }
      if (waiter) deps.waiters?.placed(waiter);
      const pauseMs = Math.min(
        leftMs,
        RETRY_MAX_MS,
        retryAfterMs > 0 ? retryAfterMs : RETRY_MAX_MS,
      );
      if (ended.aborted) throw new WaitCancelledError(request.waitId);
      if (woken) continue;
      const how = waiter
        ? await sleepUntilWoken(pauseMs, ended, (onWake) => {
            wake = onWake;
            return () => {
              wake = remember;
            };
          })
        : await sleepUntilWoken(pauseMs, ended, (onWake) => deps.notifier.onRelease(key, onWake));
      if (how === "aborted") throw new WaitCancelledError(request.waitId);
    }
  } finally {
    unsubscribe();
    if (waiter) deps.waiters?.remove(waiter);
  }
}
