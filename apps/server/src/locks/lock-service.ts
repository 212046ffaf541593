import { performance } from "node:perf_hooks";
import {
  InvalidArgumentError,
  LockTimeoutError,
  WardenError,
  type AcquireResult,
  type Holder,
  type LockKey,
  type Tier,
} from "@warden/core";
import type { Logger } from "pino";
import type { TenantPrincipal } from "../auth/principal.js";
import type { Metrics } from "../metrics/metrics.js";
import type { ResourceView } from "../registry/resource-view.js";
import type { AcquireOutcome, StatsCollector } from "../stats/stats-collector.js";
import type { ReleaseNotifier } from "./release-notifier.js";
import { sleepUntilWoken } from "./sleep-until-woken.js";
import type { TieredLocks } from "./tiered-locks-port.js";
import type { WaitQueues } from "./wait-queues.js";
import { WaitCancelledError } from "./wait-cancelled-error.js";

/** A blocking or non-blocking acquire as the router hands it over. */
export interface AcquireRequest {
  readonly principal: TenantPrincipal;
  readonly resource: ResourceView;
  readonly businessKey: string;
  readonly holder: Holder;
  readonly leaseMs: number | undefined;
  readonly waitMs: number;
  readonly waitId: string | null;
  /** Aborted when the caller goes away (request aborted, connection closed). */
  readonly signal: AbortSignal;
}

// A waiter re-checks at least this often even without a release notification: a lease
// that lapses instead of being released, or a notification lost with a Redis hiccup,
// costs at most this much extra wait. Not a polling loop: notifications do the waking.
const RECHECK_CAP_MS = 2_000;

/**
 * Acquire with the resource's policy and server-side waiting: waiters sleep until a
 * release notification (this instance or another), the holder's lease could have
 * lapsed, their deadline, or cancellation. For `fair` resources only the first waiter
 * of a key tries the store. Records outcome and latency in metrics and stats.
 */
export class LockService {
  constructor(
    private readonly locks: TieredLocks,
    private readonly waiters: WaitQueues,
    private readonly notifier: ReleaseNotifier,
    private readonly metrics: Metrics,
    private readonly stats: StatsCollector,
    private readonly logger: Logger,
  ) {}

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const { resource } = request;
    const leaseMs = request.leaseMs ?? resource.defaultLeaseMs;
    if (leaseMs > resource.maxLeaseMs) {
      throw new InvalidArgumentError(
        "leaseMs",
        `must be at most ${resource.maxLeaseMs} ms for ${resource.name}`,
      );
    }
    const key: LockKey = { resource: resource.name, businessKey: request.businessKey };
    const started = performance.now();
    let outcome: AcquireOutcome = "error";
    let tier: Tier = this.locks.tier;
    try {
      const result =
        request.waitMs === 0
          ? await this.tryOnce(request, key, leaseMs)
          : await this.wait(request, key, leaseMs);
      outcome = result.granted ? "granted" : "refused";
      tier = result.tier;
      this.log(request, result, leaseMs);
      return result;
    } catch (error) {
      outcome = outcomeOf(error);
      throw error;
    } finally {
      const latencyMs = performance.now() - started;
      this.metrics.acquireTotal.inc({ resource: resource.name, tier, outcome });
      this.metrics.acquireDuration.observe(
        { resource: resource.name, tier, outcome },
        latencyMs / 1000,
      );
      this.stats.recordAcquire(resource.name, outcome, latencyMs);
    }
  }

  private attempt(request: AcquireRequest, key: LockKey, leaseMs: number): Promise<AcquireResult> {
    const { resource } = request;
    return this.locks.acquire(
      { ...key, holder: request.holder, leaseMs },
      {
        degrade: resource.degrade,
        localFallback: resource.localFallback,
        waitReplicas: resource.waitReplicas,
      },
    );
  }

  /** waitMs 0: one try — except that a fair key with queued waiters refuses newcomers. */
  private async tryOnce(
    request: AcquireRequest,
    key: LockKey,
    leaseMs: number,
  ): Promise<AcquireResult> {
    const head = request.resource.fair ? this.waiters.head(key) : undefined;
    if (head) {
      const current = await this.locks.inspect(key);
      // The holder itself may re-enter; everybody else queues behind the waiters.
      if (!current || !sameHolder(current.holder, request.holder)) {
        return {
          granted: false,
          holder: current?.holder ?? head.holder,
          ttlMs: current?.ttlMs ?? 0,
          tier: current?.tier ?? this.locks.tier,
        };
      }
    }
    return this.attempt(request, key, leaseMs);
  }

  private async wait(
    request: AcquireRequest,
    key: LockKey,
    leaseMs: number,
  ): Promise<AcquireResult> {
    const deadline = performance.now() + request.waitMs;
    const cancel = new AbortController();
    const signal = AbortSignal.any([request.signal, cancel.signal]);
    // Wakes that arrive while we are not asleep (mid-attempt) are remembered, so a
    // release between a refusal and the next sleep is never missed.
    let wokenWhileAwake = false;
    let wake: () => void = () => {
      wokenWhileAwake = true;
    };
    const waiter = this.waiters.enqueue({
      key,
      holder: request.holder,
      waitId: request.waitId,
      tenantId: request.principal.tenantId,
      wake: () => wake(),
      cancel: () => cancel.abort(),
    });
    const unsubscribe = this.notifier.onRelease(key, () => wake());
    let granted = false;
    try {
      for (;;) {
        let sleepMs = deadline - performance.now();
        wokenWhileAwake = false;
        if (!request.resource.fair || this.waiters.isHead(waiter)) {
          const result = await this.attempt(request, key, leaseMs);
          if (result.granted) {
            granted = true;
            return result;
          }
          // Retry when the holder's lease could have lapsed, if no release wakes us first.
          sleepMs = Math.min(sleepMs, result.ttlMs + 5, RECHECK_CAP_MS);
        }
        if (deadline - performance.now() <= 0) throw new LockTimeoutError(request.waitMs);
        if (wokenWhileAwake && !signal.aborted) continue;
        const how = await sleepUntilWoken(sleepMs, signal, (onWake) => {
          wake = onWake;
          return () => {
            wake = () => {
              wokenWhileAwake = true;
            };
          };
        });
        if (how === "aborted") throw new WaitCancelledError(request.waitId);
      }
    } finally {
      unsubscribe();
      // A granted head leaves the key held: waking the next waiter would only be refused.
      this.waiters.remove(waiter, !granted);
    }
  }

  private log(request: AcquireRequest, result: AcquireResult, leaseMs: number): void {
    if (!this.logger.isLevelEnabled("debug")) return;
    if (result.granted) {
      this.logger.debug(
        {
          op: "acquire",
          resource: result.resource,
          businessKey: result.businessKey,
          lockId: result.lockId,
          fence: result.fence,
          tier: result.tier,
          leaseMs,
          reentry: result.reentry,
          clientId: request.holder.clientId,
          ownerId: request.holder.ownerId,
        },
        "lock granted",
      );
    } else {
      this.logger.debug(
        {
          op: "acquire",
          resource: request.resource.name,
          businessKey: request.businessKey,
          lockId: null,
          fence: null,
          tier: result.tier,
          heldBy: result.holder,
        },
        "lock refused",
      );
    }
  }
}

function sameHolder(a: Holder, b: Holder): boolean {
  return a.clientId === b.clientId && a.ownerId === b.ownerId;
}

function outcomeOf(error: unknown): AcquireOutcome {
  if (error instanceof LockTimeoutError) return "timeout";
  if (error instanceof WaitCancelledError) return "cancelled";
  if (error instanceof WardenError && error.code === "LOCK_UNAVAILABLE") return "unavailable";
  return "error";
}
