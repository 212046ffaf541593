import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import {
  InvalidArgumentError,
  LockUnavailableError,
  NotHolderError,
  type Holder,
  type Tier,
} from "@warden/contract";
import type {
  PermitGrant,
  PermitRelease,
  PermitView,
  SemaphoreView,
  TieredSemaphores,
} from "@warden/core";
import { endHold, type HoldPart } from "../audit/audit-record.js";
import type { TrackedPermit } from "../live/permit-tracker.js";
import type { ResourceView } from "../registry/resource-view.js";
import type {
  PermitInfo,
  SemaphoreAcquireInput,
  SemaphoreAcquireReply,
  SemaphoreExtendInput,
  SemaphoreExtendReply,
  SemaphoreInspectReply,
  SemaphoreKeyInput,
  SemaphoreReleaseInput,
  SemaphoreReleaseReply,
} from "../schemas/semaphore.js";
import {
  anyTierHolds,
  checkRenewalLimit,
  endExpired,
  fillGrantFacts,
  forceReleaseGrants,
  grantAudit,
  type ForcedBy,
  type ForceReleaseInput,
} from "./coordination-grants.js";
import { failedOutcomeOf, leaseOf, untilGranted } from "./coordination-wait.js";
import { clientIdOf, type LockCaller } from "./lock-caller.js";
import type { SemaphoreUseCaseDeps } from "./semaphore-deps.js";
import type { PermitOutcome } from "./semaphore-metrics.js";

/** How long a fair waiter's place lives without a try (it tries at least every RETRY_MAX_MS). */
const FAIR_HEARTBEAT_MS = 5_000;
/** How long past its expiry a permit nobody released or renewed is reported as expired. */
const LAPSE_GRACE_MS = 1_000;
/** Keys per `holder.list` page of a semaphore resource when the caller names no limit. */
const LIST_KEYS_DEFAULT = 100;

/** A live permit grant in a holder list: its key and the grant. */
export interface ListedPermit extends PermitInfo {
  readonly resource: string;
  readonly businessKey: string;
}

/** Options of {@link SemaphoreUseCases.list}, as `holder.list` takes them. */
export interface PermitListOptions {
  readonly businessKey?: string;
  readonly tier?: Tier;
  /** The cursor of a previous page, as {@link TieredSemaphores.list} made it. */
  readonly cursor?: string;
  /** Keys per page. */
  readonly limit?: number;
}

/** Who removes permits by force, and why (the audit row's actor and reason). */
export type PermitsForcedBy = ForcedBy;

/** A permit grant as its audit records and its hold row see it. */
type AuditedPermit = Pick<
  PermitView,
  "lockId" | "fence" | "holder" | "tier" | "permits" | "grantedAt" | "expiresAt"
>;

/** Beyond {@link SemaphoreUseCaseDeps}: the stores' force-release (docs/decisions/0185). */
export interface SemaphoreOperatorDeps {
  readonly forced?: Pick<TieredSemaphores, "forceRelease">;
}

/** The semaphore operations every transport calls (docs/decisions/0161). */
export interface SemaphoreUseCases {
  acquire(
    caller: LockCaller,
    input: SemaphoreAcquireInput,
    signal: AbortSignal,
  ): Promise<SemaphoreAcquireReply>;
  release(caller: LockCaller, input: SemaphoreReleaseInput): Promise<SemaphoreReleaseReply>;
  extend(caller: LockCaller, input: SemaphoreExtendInput): Promise<SemaphoreExtendReply>;
  inspect(caller: LockCaller, input: SemaphoreKeyInput): Promise<SemaphoreInspectReply>;
  /**
   * The live permit grants of a resource the caller was already checked to own (one key
   * with `businessKey`), read from the store key by key; the keys of a whole resource come
   * from the grants the fleet has seen (docs/decisions/0162). Paged by key.
   */
  list(
    resource: ResourceView,
    options: PermitListOptions,
  ): Promise<{ holders: ListedPermit[]; cursor: string | null }>;
  /**
   * Reports the permit grants this instance granted or renewed last whose lease ran out
   * without a release or renewal (checked with the store first) as `permit-expired`
   * events, sent to the live feed of every instance; the audit ends the grant's hold row
   * as `expired` (docs/decisions/0196). Called every second.
   */
  reportLapsed(now?: number): Promise<void>;
  /**
   * Removes a key's permit grants (or only `lockId`'s) on every tier, whoever holds them,
   * for an operator already checked to see the resource: sent to the live feed as
   * `permit-force-release` with the operator and reason, audited as the end of each
   * grant's hold row (`force-released`, decision 0196), and the key's waiters are woken
   * (docs/decisions/0185).
   */
  forceRelease(
    resource: ResourceView,
    input: ForceReleaseInput,
    by: PermitsForcedBy,
  ): Promise<PermitView[]>;
  /** True while a key the fleet has seen granted still holds a live permit on any tier. */
  hasLiveGrants(resource: ResourceView): Promise<boolean>;
}

function infoOf(view: PermitView): PermitInfo {
  return {
    lockId: view.lockId,
    fence: view.fence,
    holder: view.holder,
    permits: view.permits,
    grantedAt: view.grantedAt,
    renewals: view.renewals,
    expiresAt: view.expiresAt,
    ttlMs: view.ttlMs,
    tier: view.tier,
  };
}

/** The resource's total; a semaphore resource always has one (checked at registration). */
function totalOf(resource: ResourceView): number {
  if (resource.permits === null) {
    throw new InvalidArgumentError("permits", `${resource.name} has no permits configured`);
  }
  return resource.permits;
}

/**
 * Builds the semaphore use cases. Each checks the caller's tenant owns the resource and
 * that it is a semaphore (another tenant's resource is UNKNOWN_RESOURCE, a mutex is
 * INVALID_ARGUMENT on `kind`) before touching a store, and owns its metrics, logs and audit.
 */
export function createSemaphoreUseCases(
  deps: SemaphoreUseCaseDeps & SemaphoreOperatorDeps,
): SemaphoreUseCases {
  const { semaphoreMetrics: m } = deps;

  /**
   * Fills what every part of a permit's hold row carries, whichever part reaches MySQL
   * first: that it is a semaphore hold, its permits, and the grant's facts.
   */
  function permitPart(
    part: HoldPart,
    permit: Pick<PermitView, "fence" | "holder" | "tier" | "permits" | "grantedAt" | "expiresAt">,
  ): void {
    part.primitive = "semaphore";
    part.permits = permit.permits;
    fillGrantFacts(part, permit);
  }

  /**
   * Audits a step of a permit grant: the live feed gets the `permit-*` record as before,
   * MySQL the grant's hold row (one `lock_hold` row per permit grant, docs/decisions/0196).
   */
  const auditStep = grantAudit<
    "permit-grant" | "permit-release" | "permit-expired" | "permit-force-release",
    AuditedPermit
  >(deps.hub, permitPart);

  /** Audits a grant or a release made here. */
  function audit(
    type: "permit-grant" | "permit-release",
    resource: ResourceView,
    view: PermitView,
    fields: { leaseMs?: number; reason: string },
  ): void {
    const key = { resource: resource.name, businessKey: view.businessKey };
    auditStep(type, resource.tenantId, key, view, fields, (part, record) => {
      if (type === "permit-grant") {
        part.leaseMs ??= fields.leaseMs ?? null;
      } else {
        endHold(part, "released", record.at);
      }
    });
  }

  /** Tells the tracker (and through it the fleet) about a grant or renewal made here. */
  function track(resource: ResourceView, view: PermitView): void {
    deps.permits?.seen({
      tenantId: resource.tenantId,
      resource: view.resource,
      businessKey: view.businessKey,
      lockId: view.lockId,
      fence: view.fence,
      holder: view.holder,
      permits: view.permits,
      tier: view.tier,
      grantedAt: view.grantedAt,
      expiresAt: view.expiresAt,
    });
  }

  async function acquire(
    caller: LockCaller,
    input: SemaphoreAcquireInput,
    signal: AbortSignal,
  ): Promise<SemaphoreAcquireReply> {
    const clientId = clientIdOf(caller);
    const resource =
      deps.registry.resolveCached(input.resource, caller.principal) ??
      (await deps.registry.resolve(input.resource, caller.principal));
    const totalPermits = totalOf(resource);
    const permits = input.permits ?? 1;
    if (permits > totalPermits) {
      throw new InvalidArgumentError(
        "permits",
        `must be at most the resource's total of ${totalPermits}`,
      );
    }
    const leaseMs = leaseOf(resource, input.leaseMs);
    const holder: Holder = { clientId, ownerId: input.ownerId };
    const key = { resource: resource.name, businessKey: input.businessKey };
    const waitMs = input.waitMs ?? 0;
    // A waiting acquire of a fair resource keeps a place in the key's queue; a try only
    // respects the queue (docs/decisions/0160).
    const waiterId = resource.fair && waitMs > 0 ? randomBytes(12).toString("base64url") : null;
    const fair = resource.fair ? { waiterId, heartbeatMs: FAIR_HEARTBEAT_MS } : undefined;
    const started = performance.now();
    let outcome: PermitOutcome = "error";
    let tier: Tier = deps.semaphores.tier;
    let grant: PermitGrant;
    try {
      const result = await untilGranted(
        deps,
        {
          key,
          holder,
          tenantId: resource.tenantId,
          waitMs,
          waitId: input.waitId ?? null,
          ref: waiterId,
          signal,
        },
        async () => {
          const tried = await deps.semaphores.acquire(
            // One shape per call, no spreads (docs/decisions/0201); fair is undefined when not.
            {
              resource: key.resource,
              businessKey: key.businessKey,
              holder,
              leaseMs,
              permits,
              totalPermits,
              fair,
              waitReplicas: resource.waitReplicas,
            },
            resource,
          );
          tier = tried.tier;
          return tried;
        },
        (gone) =>
          deps.semaphores.release({
            resource: key.resource,
            businessKey: key.businessKey,
            lockId: gone.lockId,
            tier: gone.tier,
          }),
      );
      if (!result.granted) {
        outcome = "refused";
        if (deps.logger.isLevelEnabled("debug")) {
          deps.logger.debug(
            { op: "semaphore.acquire", ...key, permits, inUse: result.inUse, tier },
            "permit refused",
          );
        }
        return {
          granted: false,
          inUse: result.inUse,
          totalPermits,
          retryAfterMs: result.retryAfterMs,
          queued: result.queued,
          tier: result.tier,
          currentTier: deps.locks.tier,
        };
      }
      grant = result;
      outcome = "granted";
    } catch (error) {
      if (outcome === "error") outcome = failedOutcomeOf(error);
      throw error;
    } finally {
      const latencyS = (performance.now() - started) / 1000;
      m.recordAcquire(
        resource.name,
        tier,
        outcome,
        deps.metrics.apps.of(caller.principal),
        latencyS,
      );
      deps.stats?.recordAcquire(resource.name, outcome, latencyS * 1000);
      if (waiterId !== null && outcome !== "granted") {
        // A grant leaves the queue by itself; a waiter that gives up leaves it here.
        void deps.semaphores.leaveQueue({ ...key, waiterId }).catch(() => undefined);
      }
    }
    track(resource, grant);
    audit("permit-grant", resource, grant, {
      leaseMs,
      reason: `permits ${grant.permits}, ${grant.inUse}/${grant.totalPermits} in use`,
    });
    if (deps.logger.isLevelEnabled("debug")) {
      deps.logger.debug(
        {
          op: "semaphore.acquire",
          ...key,
          lockId: grant.lockId,
          fence: grant.fence,
          permits: grant.permits,
          inUse: grant.inUse,
          tier: grant.tier,
          leaseMs,
          clientId,
          ownerId: input.ownerId,
        },
        "permit granted",
      );
    }
    return {
      granted: true,
      lockId: grant.lockId,
      fence: grant.fence,
      holder: grant.holder,
      permits: grant.permits,
      grantedAt: grant.grantedAt,
      renewals: grant.renewals,
      expiresAt: grant.expiresAt,
      ttlMs: grant.ttlMs,
      tier: grant.tier,
      inUse: grant.inUse,
      totalPermits,
      maxRenewals: resource.maxRenewals,
      currentTier: deps.locks.tier,
    };
  }

  async function release(
    caller: LockCaller,
    input: SemaphoreReleaseInput,
  ): Promise<SemaphoreReleaseReply> {
    const resource =
      deps.registry.getCached(input.resource, caller.principal) ??
      (await deps.registry.get(input.resource, caller.principal));
    const key = { resource: resource.name, businessKey: input.businessKey };
    let view: PermitRelease;
    try {
      view = await deps.semaphores.release({
        resource: key.resource,
        businessKey: key.businessKey,
        lockId: input.lockId,
        tier: input.tier,
      });
    } catch (error) {
      m.recordRelease(resource.name, error instanceof NotHolderError ? "not-holder" : "error");
      throw error;
    }
    m.recordRelease(resource.name, "released");
    deps.permits?.ended(view.lockId);
    // A release the store saw nobody refused (Redis: no watch mark, decision 0206) wakes only
    // this instance's listeners: no other instance can have a waiter or a watch on it.
    deps.notifier.released(key, view.watched !== false);
    audit("permit-release", resource, view, { reason: `permits ${view.permits}` });
    deps.logger.debug(
      { op: "semaphore.release", ...key, lockId: view.lockId, tier: view.tier },
      "permit released",
    );
    return { released: true, permit: infoOf(view), currentTier: deps.locks.tier };
  }

  async function extend(
    caller: LockCaller,
    input: SemaphoreExtendInput,
  ): Promise<SemaphoreExtendReply> {
    const resource =
      deps.registry.resolveCached(input.resource, caller.principal) ??
      (await deps.registry.resolve(input.resource, caller.principal));
    const leaseMs = leaseOf(resource, input.leaseMs);
    const key = { resource: resource.name, businessKey: input.businessKey };
    try {
      await checkRenewalLimit(deps, {
        op: "semaphore.extend",
        tenantId: caller.principal.tenantId,
        resource,
        businessKey: input.businessKey,
        lockId: input.lockId,
        live: async (key) => (await deps.semaphores.inspect(key)).flatMap((view) => view.holders),
        name: (permit) => `permit ${permit.lockId}`,
      });
      const view = await deps.semaphores.extend({
        ...key,
        lockId: input.lockId,
        tier: input.tier,
        leaseMs,
      });
      track(resource, view);
      // Audited in the grant's hold row, not published: as before.
      deps.hub.renewHold(resource.tenantId, resource.name, view, leaseMs, (part) =>
        permitPart(part, view),
      );
      return { permit: infoOf(view), currentTier: deps.locks.tier };
    } catch (error) {
      m.renewFailures.inc({ resource: resource.name });
      throw error;
    }
  }

  async function inspect(
    caller: LockCaller,
    input: SemaphoreKeyInput,
  ): Promise<SemaphoreInspectReply> {
    const resource =
      deps.registry.getCached(input.resource, caller.principal) ??
      (await deps.registry.get(input.resource, caller.principal));
    const views = await deps.semaphores.inspect({
      resource: resource.name,
      businessKey: input.businessKey,
    });
    const holders = views.flatMap((view) => view.holders.map(infoOf));
    holders.sort((a, b) => a.expiresAt - b.expiresAt);
    return {
      holders,
      inUse: holders.reduce((sum, holder) => sum + holder.permits, 0),
      totalPermits: resource.permits ?? 0,
      currentTier: deps.locks.tier,
    };
  }

  async function list(
    resource: ResourceView,
    options: PermitListOptions,
  ): Promise<{ holders: ListedPermit[]; cursor: string | null }> {
    let views: SemaphoreView[];
    let cursor: string | null = null;
    if (options.businessKey !== undefined) {
      views = await deps.semaphores.inspect({
        resource: resource.name,
        businessKey: options.businessKey,
      });
    } else {
      const page = await deps.semaphores.list({
        resource: resource.name,
        limit: options.limit ?? LIST_KEYS_DEFAULT,
        ...(options.tier === undefined ? {} : { tier: options.tier }),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      });
      views = page.keys;
      cursor = page.cursor;
    }
    const holders: ListedPermit[] = [];
    for (const view of views) {
      for (const permit of view.holders) {
        if (options.tier !== undefined && permit.tier !== options.tier) continue;
        holders.push({
          resource: permit.resource,
          businessKey: permit.businessKey,
          ...infoOf(permit),
        });
      }
    }
    return { holders, cursor };
  }

  let sweeping = false;
  async function reportLapsed(now = Date.now()): Promise<void> {
    if (sweeping || !deps.permits) return;
    sweeping = true;
    try {
      for (const permit of deps.permits.sweep(now, LAPSE_GRACE_MS)) await reportOne(permit);
    } finally {
      sweeping = false;
    }
  }

  /** Reports one lapsed grant, unless the store still holds it (renewed where we did not see). */
  async function reportOne(permit: TrackedPermit): Promise<void> {
    let views: Awaited<ReturnType<typeof deps.semaphores.inspect>>;
    try {
      views = await deps.semaphores.inspect(permit);
    } catch {
      // The tier in force did not answer: whether the grant lives is unknown, so it is not
      // reported; tracked again, it is asked about at the next sweep (docs/decisions/0200).
      deps.permits?.seen(permit);
      return;
    }
    const live = views.flatMap((view) => view.holders).find((p) => p.lockId === permit.lockId);
    if (live) {
      deps.permits?.seen({ ...permit, expiresAt: live.expiresAt });
      return;
    }
    auditStep(
      "permit-expired",
      permit.tenantId,
      permit,
      permit,
      {
        reason: `lapsed: permits ${permit.permits}, no release or renewal before the lease ran out`,
        at: permit.expiresAt,
      },
      endExpired,
    );
  }

  async function forceRelease(
    resource: ResourceView,
    input: ForceReleaseInput,
    by: PermitsForcedBy,
  ): Promise<PermitView[]> {
    const forced = deps.forced;
    if (!forced)
      throw new LockUnavailableError("this server cannot force-release permits", {
        reason: "unsupported",
      });
    return forceReleaseGrants(deps, resource, input, by, {
      op: "semaphore.force-release",
      messages: { removed: "permits force-released", none: "force-release found no permit" },
      remove: (target) => forced.forceRelease(target),
      forget: (view) => deps.permits?.ended(view.lockId),
      type: "permit-force-release",
      audit: auditStep,
      what: (view) => `permits ${view.permits}`,
    });
  }

  /**
   * True while any tier holds a live permit of the resource, as the stores list them: grants
   * of instances that stopped count too. A tier that cannot answer counts as holding one
   * when it is the tier in force (refuse rather than guess), else as holding none.
   */
  async function hasLiveGrants(resource: ResourceView): Promise<boolean> {
    return anyTierHolds(deps.semaphores.tier, (tier, cursor) =>
      deps.semaphores.list({
        resource: resource.name,
        tier,
        limit: 500,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
  }

  return { acquire, release, extend, inspect, list, reportLapsed, forceRelease, hasLiveGrants };
}
