import { performance } from "node:perf_hooks";
import { NotHolderError, type Holder, type Tier } from "@warden/contract";
import type { RwGrant, RwKeyView, RwLeaseView, RwMode } from "@warden/core";
import { auditRecord, endHold, type HoldPart } from "../audit/audit-record.js";
import type { PermitTracker } from "../live/permit-tracker.js";
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
import type { CoordinationUseCaseDeps } from "./coordination-deps.js";
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
import { RwExpiryWatch, type WatchedRwGrant } from "./rw-expiry.js";
import type { RwMetrics, RwOutcome } from "./rw-metrics.js";
import type { RwLocksPort } from "./rw-stores.js";

/**
 * How long a refused writer's intent stops new readers without another try: three retry
 * periods, so a waiting writer (one try a second at least) keeps it alive on a loaded box.
 * A wait that ends without a grant withdraws its intent at once; INTENT_MS only bounds an
 * intent whose withdrawal did not reach the store (or whose server died).
 */
const INTENT_MS = 3_000;
/** Keys per `holder.list` page of an rwlock resource when the caller names no limit. */
const LIST_KEYS_DEFAULT = 100;

/** A live read or write grant in a holder list: its key and the grant. */
export interface ListedRwGrant extends RwGrantInfo {
  readonly resource: string;
  readonly businessKey: string;
  /** Entries of the same holder in the same mode (released one by one). */
  readonly reentry: number;
}

/** Options of {@link RwUseCases.list}, as `holder.list` takes them. */
export interface RwListOptions {
  readonly businessKey?: string;
  readonly tier?: Tier;
  /** From a previous page (`<tiers still to walk>:<store cursor>` without `tier`, the store's with it). */
  readonly cursor?: string;
  /** Keys per page. */
  readonly limit?: number;
}

export type { ForcedBy } from "./coordination-grants.js";

/**
 * Everything the read-write lock use cases may use (docs/decisions/0166): the shared deps,
 * with the registry seen as registryOfKind(registry, "rwlock").
 */
export interface RwUseCaseDeps extends CoordinationUseCaseDeps {
  readonly rw: RwLocksPort;
  readonly rwMetrics: RwMetrics;
  /** True when the audit holds a release of `lockId` (recorded by another instance). */
  releasedElsewhere(lockId: string): Promise<boolean>;
  /** Expiry checks (see RwExpiryWatch); defaults 1 s and 5 s. */
  readonly expiry?: { readonly everyMs?: number; readonly graceMs?: number };
  /**
   * Keeps the live grants this instance makes, renews and ends (shared with the fleet by the
   * fleet bus): the live-holds gauge and long-hold detection count them (docs/decisions/0194).
   */
  readonly grants?: Pick<PermitTracker, "seen" | "ended">;
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
  /**
   * The live grants of a resource the caller was already checked to see (one key with
   * `businessKey`), as the stores list them (docs/decisions/0185). Paged by key.
   */
  list(
    resource: ResourceView,
    options: RwListOptions,
  ): Promise<{ grants: ListedRwGrant[]; cursor: string | null }>;
  /**
   * Removes a key's grants (or only `lockId`'s) on every tier, whoever holds them, for an
   * operator already checked to see the resource: sent to the live feed as
   * `rwlock-force-release` with the operator and reason, audited as the end of each grant's
   * hold row (`force-released`, decision 0199), and the key's waiters are woken.
   */
  forceRelease(
    resource: ResourceView,
    input: ForceReleaseInput,
    by: ForcedBy,
  ): Promise<RwLeaseView[]>;
  /**
   * True while any tier holds a live grant of the resource; a tier that cannot answer
   * counts as holding one when it is the current tier (refuse rather than guess).
   */
  hasLiveGrants(resource: ResourceView): Promise<boolean>;
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

/**
 * Builds the read-write lock use cases. Each checks the caller's tenant owns the resource
 * and that it is an rwlock (another tenant's resource is UNKNOWN_RESOURCE, a mutex or a
 * semaphore INVALID_ARGUMENT on `kind`) before touching a store, and owns its metrics, logs
 * and audit: the live feed gets `rwlock-grant`, `rwlock-release`, `rwlock-expired` and
 * `rwlock-force-release` records (the mode in the reason), MySQL one `lock_hold` row per
 * grant, of kind `read` or `write` (docs/decisions/0199).
 */
export function createRwUseCases(deps: RwUseCaseDeps): RwUseCases {
  const { rwMetrics: m } = deps;

  function track(tenantId: string, view: RwLeaseView): void {
    deps.grants?.seen({
      tenantId,
      resource: view.resource,
      businessKey: view.businessKey,
      lockId: view.lockId,
      fence: view.fence,
      holder: view.holder,
      permits: 1,
      tier: view.tier,
      grantedAt: view.grantedAt,
      expiresAt: view.expiresAt,
      mode: view.mode,
    });
  }

  /**
   * Fills what every part of a read or write grant's hold row carries, whichever part
   * reaches MySQL first: its mode (the row's kind) and the grant's facts.
   */
  function grantPart(
    part: HoldPart,
    grant: Pick<RwLeaseView, "mode" | "fence" | "holder" | "tier" | "grantedAt" | "expiresAt">,
  ): void {
    part.primitive = grant.mode;
    fillGrantFacts(part, grant);
  }

  /**
   * Audits a step of a grant: the live feed and the fleet get the `rwlock-*` record as
   * before, MySQL the grant's hold row (one `lock_hold` row per grant, docs/decisions/0199).
   */
  const audit = grantAudit<"rwlock-grant" | "rwlock-expired" | "rwlock-force-release", RwLeaseView>(
    deps.hub,
    grantPart,
  );

  const expiry = new RwExpiryWatch({
    inspect: (key) => deps.rw.inspect(key),
    releasedElsewhere: (lockId) => deps.releasedElsewhere(lockId),
    expired: (grant: WatchedRwGrant) => {
      m.expired.inc({ resource: grant.key.resource, mode: grant.view.mode });
      audit(
        "rwlock-expired",
        grant.tenantId,
        grant.key,
        grant.view,
        { reason: `${grant.view.mode}: the lease ended without a release`, at: grant.expiresAt },
        (part, record) => {
          part.expiresAt = Math.max(part.expiresAt ?? 0, grant.expiresAt);
          endExpired(part, record);
        },
      );
    },
    ...deps.expiry,
  });
  expiry.start();

  /**
   * A write wait that ended without a grant (timeout, cancel, error, shutdown) withdraws
   * its intent, so new readers are not held back for INTENT_MS by a writer that no longer
   * waits (docs/decisions/0197). Fire-and-forget, like a semaphore waiter leaving its
   * queue: the caller's answer is neither delayed nor changed, and a failure only leaves
   * the intent to lapse by itself. A grant clears its own intent.
   */
  function withdrawIntent(key: { resource: string; businessKey: string }, holder: Holder): void {
    void deps.rw.withdrawIntent({ ...key, holder }).catch((error: unknown) => {
      deps.logger.debug(
        { op: "rwlock.write", ...key, err: error },
        "writer intent not withdrawn; it lapses by itself",
      );
    });
  }

  async function acquire(
    mode: RwMode,
    caller: LockCaller,
    input: RwAcquireInput,
    signal: AbortSignal,
  ): Promise<RwAcquireReply> {
    const clientId = clientIdOf(caller);
    const resource =
      deps.registry.resolveCached(input.resource, caller.principal) ??
      (await deps.registry.resolve(input.resource, caller.principal));
    const leaseMs = leaseOf(resource, input.leaseMs);
    const holder: Holder = { clientId, ownerId: input.ownerId };
    const key = { resource: resource.name, businessKey: input.businessKey };
    const request = {
      ...key,
      holder,
      leaseMs,
      intentMs: INTENT_MS,
      waitReplicas: resource.waitReplicas,
    };
    const waitMs = input.waitMs ?? 0;
    // Readers follow the resource's writer preference. A writer registers its intent (which
    // stops new readers) only while it waits: a try that is refused and goes away must not
    // hold readers back for INTENT_MS.
    const writerPreference = resource.writerPreference && (mode === "read" || waitMs > 0);
    const started = performance.now();
    let outcome: RwOutcome = "error";
    let tier: Tier = deps.rw.tier;
    let grant: RwGrant;
    // A waiting writer with writer preference registers an intent from its first refusal
    // (and an attempt whose outcome is unknown may have registered one).
    const mayHoldIntent = mode === "write" && writerPreference;
    try {
      const result = await untilGranted(
        deps,
        {
          key,
          holder,
          tenantId: resource.tenantId,
          waitMs,
          waitId: input.waitId ?? null,
          ref: null,
          signal,
        },
        async () => {
          const tried =
            mode === "read"
              ? await deps.rw.acquireRead({ ...request, writerPreference }, resource)
              : await deps.rw.acquireWrite({ ...request, writerPreference }, resource);
          tier = tried.tier;
          return tried;
        },
        (gone) => deps.rw.release({ ...key, lockId: gone.lockId, tier: gone.tier }),
      );
      if (!result.granted) {
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
      grant = result;
      outcome = "granted";
    } catch (error) {
      if (outcome === "error") outcome = failedOutcomeOf(error);
      throw error;
    } finally {
      const latencyS = (performance.now() - started) / 1000;
      m.recordAcquire(
        resource.name,
        mode,
        tier,
        outcome,
        deps.metrics.apps.of(caller.principal),
        latencyS,
      );
      deps.stats?.recordAcquire(resource.name, outcome, latencyS * 1000);
      if (mayHoldIntent && outcome !== "granted") withdrawIntent(key, holder);
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
    track(resource.tenantId, grant);
    // A re-entry is the same grant (its lockId): its part only raises the row's entries and
    // expiry, as the mutex's re-entry does.
    audit(
      "rwlock-grant",
      resource.tenantId,
      key,
      grant,
      { leaseMs, reason: `${mode}${grant.reentered ? " (re-entry)" : ""}` },
      (part) => {
        part.leaseMs ??= leaseMs;
        part.reentries = Math.max(part.reentries, grant.reentry);
      },
    );
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
    const resource =
      deps.registry.getCached(input.resource, caller.principal) ??
      (await deps.registry.get(input.resource, caller.principal));
    const key = { resource: resource.name, businessKey: input.businessKey };
    const watched = expiry.lookup(input.lockId);
    let result;
    try {
      result = await deps.rw.release({ ...key, lockId: input.lockId, tier: input.tier });
    } catch (error) {
      m.recordRelease(
        resource.name,
        "unknown",
        error instanceof NotHolderError ? "not-holder" : "error",
      );
      throw error;
    }
    m.recordRelease(resource.name, result.mode, "released");
    if (result.released) {
      expiry.released(input.lockId);
      deps.grants?.ended(input.lockId);
      // Unwatched (Redis: nobody refused since the mark was last taken, decision 0206): only
      // this instance's listeners can be waiting.
      deps.notifier.released(key, result.watched !== false);
    }
    // The grant's holder and grant time are known when this instance granted it.
    const known = watched?.view;
    const at = Date.now();
    deps.hub.recordHold(
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
        at,
        grantedAt: known?.grantedAt ?? null,
      }),
      (part) => {
        // The caller need not be the holder: only the grant's own facts go into its row.
        if (known) grantPart(part, known);
        part.primitive = result.mode;
        part.fence ??= result.fence;
        part.tier ??= input.tier;
        // A release that leaves entries changes no holder: the grant goes on.
        if (result.released) endHold(part, "released", at);
      },
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
    const resource =
      deps.registry.resolveCached(input.resource, caller.principal) ??
      (await deps.registry.resolve(input.resource, caller.principal));
    const leaseMs = leaseOf(resource, input.leaseMs);
    try {
      await checkRenewalLimit(deps, {
        op: "rwlock.extend",
        tenantId: resource.tenantId,
        resource,
        businessKey: input.businessKey,
        lockId: input.lockId,
        live: async (key) => {
          const view = await deps.rw.inspect(key);
          return [...(view?.writer ? [view.writer] : []), ...(view?.readers ?? [])];
        },
        name: (grant) => `${grant.mode} grant ${grant.lockId}`,
      });
      const view = await deps.rw.extend({
        resource: resource.name,
        businessKey: input.businessKey,
        lockId: input.lockId,
        tier: input.tier,
        leaseMs,
      });
      expiry.extended(view.lockId, view.expiresAt);
      track(resource.tenantId, view);
      // Audited in the grant's hold row, not published: as before.
      deps.hub.renewHold(resource.tenantId, resource.name, view, leaseMs, (part) =>
        grantPart(part, view),
      );
      return { grant: infoOf(view), currentTier: deps.locks.tier };
    } catch (error) {
      m.renewFailures.inc({ resource: resource.name });
      throw error;
    }
  }

  async function inspect(caller: LockCaller, input: RwKeyInput): Promise<RwInspectReply> {
    const resource =
      deps.registry.getCached(input.resource, caller.principal) ??
      (await deps.registry.get(input.resource, caller.principal));
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

  async function list(
    resource: ResourceView,
    options: RwListOptions,
  ): Promise<{ grants: ListedRwGrant[]; cursor: string | null }> {
    let views: RwKeyView[];
    let cursor: string | null = null;
    if (options.businessKey !== undefined) {
      const view = await deps.rw.inspect({
        resource: resource.name,
        businessKey: options.businessKey,
      });
      views = view ? [view] : [];
    } else {
      const page = await deps.rw.list({
        resource: resource.name,
        limit: options.limit ?? LIST_KEYS_DEFAULT,
        ...(options.tier === undefined ? {} : { tier: options.tier }),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      });
      views = page.keys;
      cursor = page.cursor;
    }
    const grants: ListedRwGrant[] = [];
    for (const view of views) {
      for (const grant of [...(view.writer ? [view.writer] : []), ...view.readers]) {
        if (options.tier !== undefined && grant.tier !== options.tier) continue;
        grants.push({
          resource: grant.resource,
          businessKey: grant.businessKey,
          ...infoOf(grant),
          reentry: grant.reentry,
        });
      }
    }
    return { grants, cursor };
  }

  async function forceRelease(
    resource: ResourceView,
    input: ForceReleaseInput,
    by: ForcedBy,
  ): Promise<RwLeaseView[]> {
    return forceReleaseGrants(deps, resource, input, by, {
      op: "rwlock.force-release",
      messages: {
        removed: "read-write grants force-released",
        none: "force-release found no grant",
      },
      remove: (target) => deps.rw.forceRelease(target),
      forget: (grant) => {
        expiry.released(grant.lockId);
        deps.grants?.ended(grant.lockId);
        m.releases.inc({ resource: resource.name, mode: grant.mode, outcome: "force-released" });
      },
      type: "rwlock-force-release",
      audit,
      what: (grant) => grant.mode,
    });
  }

  async function hasLiveGrants(resource: ResourceView): Promise<boolean> {
    return anyTierHolds(deps.rw.tier, (tier, cursor) =>
      deps.rw.list({
        resource: resource.name,
        tier,
        limit: 500,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
  }

  return {
    acquire,
    release,
    extend,
    inspect,
    list,
    forceRelease,
    hasLiveGrants,
    close: () => expiry.stop(),
  };
}
