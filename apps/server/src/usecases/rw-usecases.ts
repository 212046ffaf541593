import { performance } from "node:perf_hooks";
import {
  InvalidArgumentError,
  LockTimeoutError,
  LockUnavailableError,
  NotHolderError,
  WaitCancelledError,
  type Holder,
  type Tier,
} from "@warden/contract";
import type { RwGrant, RwLeaseView, RwMode } from "@warden/core";
import type { Logger } from "pino";
import { auditRecord } from "../audit/audit-record.js";
import type { EventHub } from "../audit/event-hub.js";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import { sleepUntilWoken } from "../locks/sleep-until-woken.js";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import type { Metrics } from "../metrics/metrics.js";
import type { KindRegistry } from "../registry/kind-guard.js";
import type { ResourceView } from "../registry/resource-view.js";
import type {
  RwAcquireInput,
  RwAcquireReply,
  RwExtendInput,
  RwExtendReply,
  RwGrantInfo,
  RwInspectReply,
  RwKeyInput,
  RwReleaseInput,
  RwReleaseReply,
} from "../schemas/rwlock.js";
import { clientIdOf, type LockCaller } from "./lock-caller.js";
import { RwExpiryWatch, type WatchedRwGrant } from "./rw-expiry.js";
import type { RwMetrics, RwOutcome } from "./rw-metrics.js";
import type { RwLocksPort } from "./rw-stores.js";

/** A waiting acquire tries again at least this often (a release on any instance wakes it at once). */
const RETRY_MAX_MS = 1_000;
/**
 * How long a refused writer's intent stops new readers without another try: three retry
 * periods, so a waiting writer (one try a second at least) keeps it alive on a loaded box,
 * and one that gave up stops blocking readers within 3 s.
 */
const INTENT_MS = 3_000;

/** Everything the read-write lock use cases may use (docs/decisions/0166). */
export interface RwUseCaseDeps {
  /** Refuses resources of another kind (registryOfKind(registry, "rwlock")). */
  readonly registry: KindRegistry;
  readonly rw: RwLocksPort;
  readonly locks: Pick<TieredLocks, "tier">;
  /** Wakes waiting acquires when a grant of the key is released, here or on another instance. */
  readonly notifier: Pick<ReleaseNotifier, "released" | "onRelease">;
  readonly hub: Pick<EventHub, "record">;
  readonly metrics: Pick<Metrics, "apps">;
  readonly rwMetrics: RwMetrics;
  readonly logger: Logger;
  /** True when the audit holds a release of `lockId` (recorded by another instance). */
  releasedElsewhere(lockId: string): Promise<boolean>;
  /** Expiry checks (see RwExpiryWatch); defaults 1 s and 5 s. */
  readonly expiry?: { readonly everyMs?: number; readonly graceMs?: number };
}

/** The read-write lock operations every transport calls (docs/decisions/0166). */
export interface RwUseCases {
  acquire(
    mode: RwMode,
    caller: LockCaller,
    input: RwAcquireInput,
    signal: AbortSignal,
  ): Promise<RwAcquireReply>;
  release(caller: LockCaller, input: RwReleaseInput): Promise<RwReleaseReply>;
  extend(caller: LockCaller, input: RwExtendInput): Promise<RwExtendReply>;
  inspect(caller: LockCaller, input: RwKeyInput): Promise<RwInspectReply>;
  /** Stops the expiry checks. */
  close(): Promise<void>;
}

function infoOf(view: RwLeaseView): RwGrantInfo {
  return {
    lockId: view.lockId,
    mode: view.mode,
    fence: view.fence,
    holder: view.holder,
    grantedAt: view.grantedAt,
    renewals: view.renewals,
    expiresAt: view.expiresAt,
    ttlMs: view.ttlMs,
    tier: view.tier,
  };
}

function outcomeOf(error: unknown): RwOutcome {
  if (error instanceof LockTimeoutError) return "timeout";
  if (error instanceof WaitCancelledError) return "cancelled";
  if (error instanceof LockUnavailableError) return "unavailable";
  return "error";
}

function leaseOf(resource: ResourceView, leaseMs: number | undefined): number {
  const lease = leaseMs ?? resource.defaultLeaseMs;
  if (lease > resource.maxLeaseMs) {
    throw new InvalidArgumentError(
      "leaseMs",
      `must be at most ${resource.maxLeaseMs} ms for ${resource.name}`,
    );
  }
  return lease;
}

/**
 * Builds the read-write lock use cases. Each checks the caller's tenant owns the resource
 * and that it is an rwlock (another tenant's resource is UNKNOWN_RESOURCE, a mutex or a
 * semaphore INVALID_ARGUMENT on `kind`) before touching a store, and owns its metrics, logs
 * and audit (`rwlock-grant`, `rwlock-release`, `rwlock-expired`, the mode in the reason).
 */
export function createRwUseCases(deps: RwUseCaseDeps): RwUseCases {
  const { rwMetrics: m } = deps;

  function audit(
    type: "rwlock-grant" | "rwlock-release" | "rwlock-expired",
    tenantId: string,
    key: { resource: string; businessKey: string },
    view: Pick<RwLeaseView, "lockId" | "mode" | "fence" | "holder" | "tier" | "grantedAt">,
    fields: { leaseMs?: number; reason: string; at?: number },
  ): void {
    deps.hub.record(
      auditRecord({
        type,
        tenantId,
        resource: key.resource,
        businessKey: key.businessKey,
        lockId: view.lockId,
        fence: view.fence,
        clientId: view.holder.clientId,
        ownerId: view.holder.ownerId,
        tier: view.tier,
        leaseMs: fields.leaseMs ?? null,
        reason: fields.reason,
        at: fields.at ?? Date.now(),
        grantedAt: view.grantedAt,
      }),
    );
  }

  const expiry = new RwExpiryWatch({
    inspect: (key) => deps.rw.inspect(key),
    releasedElsewhere: (lockId) => deps.releasedElsewhere(lockId),
    expired: (grant: WatchedRwGrant) => {
      m.expired.inc({ resource: grant.key.resource, mode: grant.view.mode });
      audit("rwlock-expired", grant.tenantId, grant.key, grant.view, {
        reason: `${grant.view.mode}: the lease ended without a release`,
        at: grant.expiresAt,
      });
    },
    ...deps.expiry,
  });
  expiry.start();

  async function acquire(
    mode: RwMode,
    caller: LockCaller,
    input: RwAcquireInput,
    signal: AbortSignal,
  ): Promise<RwAcquireReply> {
    const clientId = clientIdOf(caller);
    const resource = await deps.registry.resolve(input.resource, caller.principal);
    const leaseMs = leaseOf(resource, input.leaseMs);
    const holder: Holder = { clientId, ownerId: input.ownerId };
    const key = { resource: resource.name, businessKey: input.businessKey };
    const request = {
      ...key,
      holder,
      leaseMs,
      intentMs: INTENT_MS,
    };
    const waitMs = input.waitMs ?? 0;
    // Readers follow the resource's writer preference. A writer registers its intent (which
    // stops new readers) only while it waits: a try that is refused and goes away must not
    // hold readers back for INTENT_MS.
    const writerPreference = resource.writerPreference && (mode === "read" || waitMs > 0);
    const started = performance.now();
    const deadline = started + waitMs;
    let outcome: RwOutcome = "error";
    let tier: Tier = deps.rw.tier;
    let grant: RwGrant | undefined;
    try {
      for (;;) {
        const result =
          mode === "read"
            ? await deps.rw.acquireRead({ ...request, writerPreference }, resource)
            : await deps.rw.acquireWrite({ ...request, writerPreference }, resource);
        tier = result.tier;
        if (result.granted) {
          grant = result;
          break;
        }
        const leftMs = deadline - performance.now();
        if (leftMs <= 0) {
          if (waitMs > 0) throw new LockTimeoutError(waitMs);
          outcome = "refused";
          if (deps.logger.isLevelEnabled("debug")) {
            deps.logger.debug(
              { op: `rwlock.${mode}`, ...key, reason: result.reason, tier },
              "read-write lock refused",
            );
          }
          return {
            granted: false,
            mode,
            reason: result.reason,
            holders: result.holders,
            retryAfterMs: result.retryAfterMs,
            tier: result.tier,
            currentTier: deps.locks.tier,
          };
        }
        const pauseMs = Math.min(
          leftMs,
          RETRY_MAX_MS,
          result.retryAfterMs > 0 ? result.retryAfterMs : RETRY_MAX_MS,
        );
        const how = await sleepUntilWoken(pauseMs, signal, (wake) =>
          deps.notifier.onRelease(key, wake),
        );
        if (how === "aborted") throw new WaitCancelledError(null);
      }
      outcome = "granted";
    } catch (error) {
      if (outcome === "error") outcome = outcomeOf(error);
      throw error;
    } finally {
      const latencyS = (performance.now() - started) / 1000;
      m.acquires.inc({
        resource: resource.name,
        mode,
        tier,
        outcome,
        app: deps.metrics.apps.of(caller.principal),
      });
      m.acquireDuration.observe({ resource: resource.name, mode, tier, outcome }, latencyS);
    }
    if (!grant.reentered) {
      expiry.granted({
        tenantId: resource.tenantId,
        key,
        view: grant,
        expiresAt: grant.expiresAt,
      });
    } else {
      expiry.extended(grant.lockId, grant.expiresAt);
    }
    audit("rwlock-grant", resource.tenantId, key, grant, {
      leaseMs,
      reason: `${mode}${grant.reentered ? " (re-entry)" : ""}`,
    });
    if (deps.logger.isLevelEnabled("debug")) {
      deps.logger.debug(
        {
          op: `rwlock.${mode}`,
          ...key,
          lockId: grant.lockId,
          fence: grant.fence,
          tier: grant.tier,
          leaseMs,
          clientId,
          ownerId: input.ownerId,
        },
        "read-write lock granted",
      );
    }
    return {
      granted: true,
      ...infoOf(grant),
      reentered: grant.reentered,
      maxRenewals: resource.maxRenewals,
      currentTier: deps.locks.tier,
    };
  }

  async function release(caller: LockCaller, input: RwReleaseInput): Promise<RwReleaseReply> {
    const resource = await deps.registry.get(input.resource, caller.principal);
    const key = { resource: resource.name, businessKey: input.businessKey };
    const watched = expiry.lookup(input.lockId);
    let result;
    try {
      result = await deps.rw.release({ ...key, lockId: input.lockId, tier: input.tier });
    } catch (error) {
      m.releases.inc({
        resource: resource.name,
        mode: "unknown",
        outcome: error instanceof NotHolderError ? "not-holder" : "error",
      });
      throw error;
    }
    m.releases.inc({ resource: resource.name, mode: result.mode, outcome: "released" });
    if (result.released) {
      expiry.released(input.lockId);
      deps.notifier.released(key);
    }
    // The grant's holder and grant time are known when this instance granted it.
    const known = watched?.view;
    deps.hub.record(
      auditRecord({
        type: "rwlock-release",
        tenantId: resource.tenantId,
        ...key,
        lockId: input.lockId,
        fence: result.fence,
        clientId: known?.holder.clientId ?? caller.clientId,
        ownerId: known?.holder.ownerId ?? null,
        tier: input.tier,
        reason: result.released
          ? result.mode
          : `${result.mode}: one entry released, ${result.reentry} left`,
        at: Date.now(),
        grantedAt: known?.grantedAt ?? null,
      }),
    );
    deps.logger.debug(
      { op: "rwlock.release", ...key, lockId: input.lockId, tier: input.tier },
      "read-write lock released",
    );
    return {
      released: result.released,
      mode: result.mode,
      fence: result.fence,
      currentTier: deps.locks.tier,
    };
  }

  async function extend(caller: LockCaller, input: RwExtendInput): Promise<RwExtendReply> {
    const resource = await deps.registry.resolve(input.resource, caller.principal);
    const leaseMs = leaseOf(resource, input.leaseMs);
    try {
      const view = await deps.rw.extend({
        resource: resource.name,
        businessKey: input.businessKey,
        lockId: input.lockId,
        tier: input.tier,
        leaseMs,
      });
      expiry.extended(view.lockId, view.expiresAt);
      return { grant: infoOf(view), currentTier: deps.locks.tier };
    } catch (error) {
      m.renewFailures.inc({ resource: resource.name });
      throw error;
    }
  }

  async function inspect(caller: LockCaller, input: RwKeyInput): Promise<RwInspectReply> {
    const resource = await deps.registry.get(input.resource, caller.principal);
    const view = await deps.rw.inspect({
      resource: resource.name,
      businessKey: input.businessKey,
    });
    return {
      writer: view?.writer ? infoOf(view.writer) : null,
      readers: (view?.readers ?? []).map(infoOf),
      readFence: view?.readFence ?? null,
      waitingWriters: view?.waitingWriters ?? 0,
      writerPreference: resource.writerPreference,
      tier: view?.tier ?? null,
      currentTier: deps.locks.tier,
    };
  }

  return { acquire, release, extend, inspect, close: () => expiry.stop() };
}
