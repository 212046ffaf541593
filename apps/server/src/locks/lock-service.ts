import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { LockTimeoutError, type AcquireResult, type Holder, type LockKey } from "@warden/contract";
import { LOCK_DELAY_HOLDER, QUEUED_HOLDER } from "@warden/core";
import type { TenantPrincipal } from "../auth/principal.js";
import type { ResourceView } from "../registry/resource-view.js";
import type { ReleaseNotifier } from "./release-notifier.js";
import type { SharedWait } from "./fleet-waits.js";
import { unlessItEndsTheWaitAfter, type RanNowhere } from "./retry-soon.js";
import { sleepUntilWoken } from "./sleep-until-woken.js";
import type { TieredLocks } from "./tiered-locks-port.js";
import type { WaitQueues, WaiterView } from "./wait-queues.js";
import { WaitCancelledError } from "./wait-cancelled-error.js";

/**
 * How long a cancelWait waits for another instance to announce a wait it does not know yet
 * (in a fleet only): a wait is announced at the first fleet-bus flush (100 ms) after its
 * first refused try, so a cancel sent elsewhere right after the acquire would otherwise
 * miss it. An unknown waitId answers `cancelled: false` after this long.
 */
const CANCEL_GRACE_MS = 750;
/** A blocking or non-blocking acquire, policy already applied by the acquire use case. */
export interface AcquireRequest {
  readonly principal: TenantPrincipal;
  readonly resource: ResourceView;
  readonly businessKey: string;
  readonly holder: Holder;
  /** The lease to grant, in ms, already checked against the resource's maxLeaseMs. */
  readonly leaseMs: number;
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
 * How long the store keeps a fair waiter's place without a call from it. Every attempt
 * renews the place, and a waiter attempts at least every RECHECK_CAP_MS (a third of
 * this), so a live waiter keeps its place through two missed re-checks; a waiter whose
 * instance died loses it within this time (docs/decisions/0009, 0012).
 */
export const FAIR_HEARTBEAT_MS = 3 * RECHECK_CAP_MS;

/** A fresh id for one wait: its fleet-wide ref and, when fair, its place id (the store's `waiterId` alphabet). */
function newWaiterId(): string {
  return randomBytes(12).toString("base64url");
}

/** Keys whose store queue one listing reads at most (a resource-wide listing). */
export const LIST_WAITERS_MAX_KEYS = 200;

/** A listed wait before its position is known. */
interface Listed {
  readonly businessKey: string;
  readonly clientId: string;
  readonly ownerId: string;
  readonly since: number;
}

/** The arrival order of waits that have no store queue: when they began, then their ref. */
function byArrival(a: SharedWait, b: SharedWait): number {
  return a.since - b.since || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);
}

/**
 * The store work of an acquire, with server-side waiting: waiters sleep until a release
 * notification (this instance or another), the holder's lease could have lapsed, their
 * deadline, or cancellation. For `fair` resources the store decides the order: every
 * attempt of a wait carries its place (`fair.waiterId`) in the key's queue, which the
 * store shares between all instances, and a wait that ends without a grant gives the
 * place up. A wait takes a try that ran nowhere and may pass soon (Redis unreachable, a
 * Redis Cluster slot being moved: {@link unlessItEndsTheWaitAfter}) for a refusal, pauses as
 * long as the store said and goes on; when `waitMs` runs out right after such a try, the wait
 * ends with its error rather than LOCK_TIMEOUT. After a refusal, a try whose outcome was
 * unknown goes on too once the store's clean-up of the maybe-grant answered. Any other error
 * of a try ends the wait. Policy, metrics, stats and logs belong to the acquire use case
 * (src/usecases/acquire.ts).
 */
export class LockService {
  constructor(
    private readonly locks: TieredLocks,
    private readonly waiters: WaitQueues,
    private readonly notifier: ReleaseNotifier,
  ) {}

  /** Tries once (`waitMs` 0) or waits up to `waitMs`; throws LOCK_TIMEOUT or WAIT_CANCELLED. */
  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const key: LockKey = { resource: request.resource.name, businessKey: request.businessKey };
    // A try without waiting respects a fair key's queue (on every instance): refused while
    // live waiters queue, unless it is the holder re-entering.
    const result =
      request.waitMs > 0 ? await this.wait(request, key) : await this.attempt(request, key, null);
    if (result.granted && request.signal.aborted) return this.undeliverable(request, key, result);
    return result;
  }

  /**
   * A grant made after its caller went away (the connection closed while the store was
   * granting): nobody will learn its lockId, so nobody could use, renew or release it, and
   * the key would stay held for the whole lease. It is released here and the acquire
   * answers WAIT_CANCELLED, which is what the caller would be told if anyone were there
   * (docs/decisions/0216). A release that fails leaves the lease to run out, as before.
   */
  private async undeliverable(
    request: AcquireRequest,
    key: LockKey,
    grant: AcquireResult & { granted: true },
  ): Promise<never> {
    await this.locks
      .release({ ...key, lockId: grant.lockId, tier: grant.tier })
      .catch(() => undefined);
    throw new WaitCancelledError(request.waitId);
  }

  private attempt(
    request: AcquireRequest,
    key: LockKey,
    waiterId: string | null,
  ): Promise<AcquireResult> {
    const { resource } = request;
    return this.locks.acquire(
      // One shape for every acquire (absent options are undefined, which the stores read as
      // absent): conditional spreads here made each call clone objects of varying shapes,
      // which V8 does slowly (docs/decisions/0201).
      {
        resource: key.resource,
        businessKey: key.businessKey,
        holder: request.holder,
        leaseMs: request.leaseMs,
        fair: resource.fair ? { waiterId, heartbeatMs: FAIR_HEARTBEAT_MS } : undefined,
        lockDelayMs: resource.lockDelayMs > 0 ? resource.lockDelayMs : undefined,
      },
      {
        degrade: resource.degrade,
        localFallback: resource.localFallback,
        waitReplicas: resource.waitReplicas,
      },
    );
  }

  private async wait(request: AcquireRequest, key: LockKey): Promise<AcquireResult> {
    const deadline = performance.now() + request.waitMs;
    const cancel = new AbortController();
    const signal = AbortSignal.any([request.signal, cancel.signal]);
    const ref = newWaiterId();
    const waiterId = request.resource.fair ? ref : null;
    // Wakes that arrive while we are not asleep (mid-attempt) are remembered, so a
    // release between a refusal and the next sleep is never missed.
    let wokenWhileAwake = false;
    let wake: () => void = () => {
      wokenWhileAwake = true;
    };
    const waiter = this.waiters.enqueue({
      ref,
      fair: request.resource.fair,
      key,
      holder: request.holder,
      waitId: request.waitId,
      tenantId: request.principal.tenantId,
      wake: () => wake(),
      cancel: () => cancel.abort(),
    });
    const unsubscribe = this.notifier.onRelease(key, () => wake());
    let granted = false;
    // Whether a try of this wait was refused: a later try is then no re-entry (see
    // unlessItEndsTheWaitAfter).
    let refusedBefore = false;
    try {
      for (;;) {
        wokenWhileAwake = false;
        const result = await this.attempt(request, key, waiterId).catch((error: unknown) =>
          unlessItEndsTheWaitAfter(error, refusedBefore, deadline, signal),
        );
        if (result.granted) {
          granted = true;
          return result;
        }
        // Retry when the holder's lease could have lapsed, if no release wakes us first. A
        // refusal for earlier waiters (free key, QUEUED_HOLDER, ttlMs 0) waits for their
        // turn to end: a grant and its release, or a place given up, both wake us.
        // A lock-delay refusal (docs/decisions/0175) names no holder either, but its ttlMs is
        // the delay left: sleep that long, like for a lease. A try that ran nowhere
        // (ranNowhere) pauses as long as the store said.
        this.waiters.placed(waiter);
        let pauseMs: number;
        let failed: RanNowhere | null = null;
        if ("pauseMs" in result) {
          failed = result;
          pauseMs = result.pauseMs;
        } else {
          refusedBefore = true;
          const queued =
            result.holder.clientId === QUEUED_HOLDER.clientId &&
            result.holder.ownerId !== LOCK_DELAY_HOLDER.ownerId;
          pauseMs = queued ? RECHECK_CAP_MS : result.ttlMs + 5;
        }
        const sleepMs = Math.min(deadline - performance.now(), pauseMs, RECHECK_CAP_MS);
        if (deadline - performance.now() <= 0) {
          throw failed?.endWith ?? new LockTimeoutError(request.waitMs);
        }
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
      this.waiters.remove(waiter);
      if (!granted && waiterId !== null) await this.leaveQueue(key, waiterId);
    }
  }

  /**
   * The waiters of one resource (optionally one key) across the fleet, the same list on
   * every instance (docs/decisions/0155). Fair resources: the store's queue of each key in
   * order (live places only), each place named by the wait that holds it — this
   * instance's own or one the fleet bus told of; a place whose wait is not known here
   * (another instance's, its news not arrived yet or the bus down) is listed with empty
   * clientId and ownerId and `since` 0. Other resources have no store queue: the waits
   * this instance runs and the ones the fleet bus told of, by when they began. The keys
   * listed are the ones with a known wait (or `businessKey`), at most
   * {@link LIST_WAITERS_MAX_KEYS}. The caller has resolved the resource for its tenant.
   */
  async listWaiters(
    resource: { readonly name: string; readonly fair: boolean; readonly tenantId: string },
    businessKey?: string,
  ): Promise<WaiterView[]> {
    const now = Date.now();
    const known = [
      ...this.waiters.ownOf(resource.name, businessKey),
      ...this.waiters.remote.list(resource.name, businessKey, now),
    ].filter((wait) => wait.tenantId === resource.tenantId);
    const perKey = new Map<string, Listed[]>();
    if (resource.fair) {
      const byRef = new Map(known.map((wait) => [wait.ref, wait]));
      const keys = [
        ...new Set([
          ...known.map((wait) => wait.businessKey),
          ...(businessKey === undefined ? [] : [businessKey]),
        ]),
      ]
        .sort()
        .slice(0, LIST_WAITERS_MAX_KEYS);
      const queues = await Promise.all(
        keys.map((key) =>
          this.locks.readQueue({ resource: resource.name, businessKey: key }).then(
            (places) => ({ key, places }),
            () => null,
          ),
        ),
      );
      for (const [index, queue] of queues.entries()) {
        const key = keys[index]!;
        if (queue === null) {
          // The store cannot be read now: the known waits, by when they began.
          perKey.set(key, known.filter((wait) => wait.businessKey === key).sort(byArrival));
          continue;
        }
        perKey.set(
          key,
          queue.places.map((place) => {
            const wait = byRef.get(place.waiterId);
            return wait ?? { businessKey: key, clientId: "", ownerId: "", since: 0 };
          }),
        );
      }
    } else {
      for (const wait of [...known].sort(byArrival)) {
        const list = perKey.get(wait.businessKey) ?? [];
        list.push(wait);
        perKey.set(wait.businessKey, list);
      }
    }
    const views: WaiterView[] = [];
    for (const [key, list] of [...perKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      list.forEach((wait, position) =>
        views.push({
          resource: resource.name,
          businessKey: key,
          clientId: wait.clientId,
          ownerId: wait.ownerId,
          position,
          since: wait.since,
          waitedMs: wait.since === 0 ? 0 : Math.max(0, now - wait.since),
        }),
      );
    }
    return views;
  }

  /**
   * Withdraws the tenant's wait sent with `waitId`, on whichever instance runs it
   * (docs/decisions/0155): one of this instance's is aborted here; one the fleet bus told
   * of is asked to end on its instance, and its place in the store's queue is given up at
   * once, so the queue is right before that instance reacts. False when no such wait is
   * known — another tenant's waitId, or one on a resource outside `reach`, finds nothing,
   * with the same work as an unknown one.
   */
  async cancelWait(
    tenantId: string,
    waitId: string,
    reach?: (resource: string) => boolean,
  ): Promise<boolean> {
    if (this.waiters.cancel(waitId, tenantId, reach)) return true;
    const remote = await this.waiters.findRemoteSoon(waitId, tenantId, CANCEL_GRACE_MS, reach);
    if (!remote) return false;
    const { wait, link } = remote;
    // The message first: once the place is given up, the waiters behind it are woken, and
    // the waiting instance must already be on its way to stop rather than queue again.
    if (!(await link.requestCancel(wait))) return false;
    this.waiters.remote.drop(wait.ref);
    if (wait.fair) {
      await this.leaveQueue({ resource: wait.resource, businessKey: wait.businessKey }, wait.ref);
    }
    return true;
  }

  /**
   * Gives up a fair wait's place. When it had one, the waiters behind it (on any instance)
   * are woken: the place may have been the head of a free key. A place that cannot be
   * given up (store down) lapses after FAIR_HEARTBEAT_MS.
   */
  private async leaveQueue(key: LockKey, waiterId: string): Promise<void> {
    const left = await this.locks.leaveQueue({ ...key, waiterId }).catch(() => false);
    if (left) this.notifier.released(key);
  }
}
