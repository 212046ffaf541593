import { LeaseLostError, type Holder, type LockKey, type Tier } from "@warden/contract";
import { auditRecord, endHold, type AuditRecord, type HoldPart } from "../audit/audit-record.js";
import type { ResourceView } from "../registry/resource-view.js";
import type { CoordinationUseCaseDeps } from "./coordination-deps.js";

// What the semaphore and read-write lock use cases share once a grant is made: its steps in
// the audit and its hold row, the renewal limit, an operator's force-release, and whether a
// resource still holds any grant.

/** A permit or read-write grant as its audit records and its hold row see it. */
export interface GrantFacts {
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  readonly tier: Tier;
  readonly grantedAt: number;
  readonly expiresAt: number;
}

/** What an operator's force-release removes: a key's grants, or only `lockId`'s. */
export interface ForceReleaseInput {
  readonly businessKey: string;
  readonly lockId?: string;
}

/** Who removes grants by force, and why (the audit row's actor and reason). */
export interface ForcedBy {
  readonly actor: string;
  readonly reason: string;
}

/**
 * Fills the grant's facts that every part of its hold row carries, whichever part reaches
 * MySQL first. The caller sets what the row is of (`primitive`, a semaphore's `permits`)
 * before.
 */
export function fillGrantFacts(part: HoldPart, grant: Omit<GrantFacts, "lockId">): void {
  part.fence ??= grant.fence;
  part.clientId ??= grant.holder.clientId;
  part.ownerId ??= grant.holder.ownerId;
  part.tier ??= grant.tier;
  part.grantedAt ??= grant.grantedAt;
  part.expiresAt = Math.max(part.expiresAt ?? 0, grant.expiresAt);
}

/** What a step's audit record tells beyond the grant's own facts. */
export interface StepFields {
  readonly leaseMs?: number;
  readonly reason: string;
  /** When the step happened; now when absent. */
  readonly at?: number;
  readonly actor?: string;
}

/**
 * Audits a step of a grant: the live feed and the fleet get the `type` record, MySQL the
 * grant's hold row, into whose pending part `fill` writes what the step tells.
 */
export type GrantAudit<T extends string, G extends GrantFacts> = (
  type: T,
  tenantId: string,
  key: LockKey,
  grant: G,
  fields: StepFields,
  fill: (part: HoldPart, record: AuditRecord) => void,
) => void;

/**
 * The audit of one kind's grants, one `lock_hold` row per grant: `fillGrant` writes what
 * every part of the row carries before a step's own `fill` runs.
 */
export function grantAudit<T extends string, G extends GrantFacts>(
  hub: CoordinationUseCaseDeps["hub"],
  fillGrant: (part: HoldPart, grant: G) => void,
): GrantAudit<T, G> {
  return (type, tenantId, key, grant, fields, fill) => {
    const record = auditRecord({
      type,
      tenantId,
      resource: key.resource,
      businessKey: key.businessKey,
      lockId: grant.lockId,
      fence: grant.fence,
      clientId: grant.holder.clientId,
      ownerId: grant.holder.ownerId,
      tier: grant.tier,
      leaseMs: fields.leaseMs ?? null,
      actor: fields.actor ?? null,
      reason: fields.reason,
      at: fields.at ?? Date.now(),
      grantedAt: grant.grantedAt,
    });
    hub.recordHold(record, (part) => {
      fillGrant(part, grant);
      fill(part, record);
    });
  };
}

/** Ends a hold row as expired at the record's time, with its reason. */
export function endExpired(part: HoldPart, record: AuditRecord): void {
  if (endHold(part, "expired", record.at)) part.reason = record.reason;
}

/** One extend's renewal-limit check (see {@link checkRenewalLimit}). */
export interface RenewalCheck<G> {
  /** The warning's `op`. */
  readonly op: string;
  /** The tenant the `renewal-refused` record belongs to. */
  readonly tenantId: string;
  readonly resource: ResourceView;
  readonly businessKey: string;
  readonly lockId: string;
  /** The key's live grants, as the store holds them now. */
  live(key: LockKey): Promise<readonly G[]>;
  /** How the refusal names the grant (`permit <lockId>`, `read grant <lockId>`). */
  name(grant: G): string;
}

/**
 * Refuses a renewal past the resource's maxRenewals (docs/decisions/0162): the store counts
 * a grant's renewals (the same on every instance), so the key's live grants are read first.
 * A lockId the key has no live grant of passes, and the extend answers NOT_HOLDER. A refusal
 * is logged, audited as `renewal-refused` and thrown as LeaseLostError; the grant is not
 * touched: it runs out with its lease.
 */
export async function checkRenewalLimit<G extends GrantFacts & { readonly renewals: number }>(
  deps: Pick<CoordinationUseCaseDeps, "hub" | "logger">,
  check: RenewalCheck<G>,
): Promise<void> {
  const { resource } = check;
  const max = resource.maxRenewals;
  if (max === null) return;
  const key = { resource: resource.name, businessKey: check.businessKey };
  const live = await check.live(key);
  const current = live.find((grant) => grant.lockId === check.lockId);
  if (!current || current.renewals < max) return;
  deps.logger.warn(
    {
      op: check.op,
      ...key,
      lockId: current.lockId,
      fence: current.fence,
      reason: "renewal-limit",
    },
    "renewal refused",
  );
  deps.hub.record(
    auditRecord({
      type: "renewal-refused",
      tenantId: check.tenantId,
      ...key,
      lockId: current.lockId,
      fence: current.fence,
      clientId: current.holder.clientId,
      ownerId: current.holder.ownerId,
      tier: current.tier,
      reason: "renewal-limit",
      at: Date.now(),
      grantedAt: current.grantedAt,
    }),
  );
  throw new LeaseLostError(
    check.lockId,
    `${check.name(current)} reached the renewal limit of ${resource.name} (${max}); the lease runs out — finish or acquire again`,
  );
}

/** How one kind's operator force-release removes, forgets and audits its grants. */
export interface ForceRelease<T extends string, G extends GrantFacts> {
  /** The log's `op`. */
  readonly op: string;
  /** The log's message when grants were removed, and when none was found. */
  readonly messages: { readonly removed: string; readonly none: string };
  /** Removes the key's grants (or only `lockId`'s) on every tier. */
  remove(target: LockKey & { readonly lockId?: string }): Promise<G[]>;
  /** Forgets one removed grant here (watches, trackers, metrics), before it is audited. */
  forget(grant: G): void;
  /** The type of each removed grant's audit record (`permit-force-release`, …). */
  readonly type: T;
  /** The kind's grant audit, which writes that record and the grant's hold row. */
  readonly audit: GrantAudit<T, G>;
  /** What the audit's reason says of the grant before the operator's reason. */
  what(grant: G): string;
}

/**
 * Removes a key's grants (or only `lockId`'s) by force for an operator: each removed grant
 * is forgotten here and audited as the end of its hold row (`force-released`, with the
 * operator and reason), then the key's waiters are woken and the removal is logged.
 */
export async function forceReleaseGrants<T extends string, G extends GrantFacts>(
  deps: Pick<CoordinationUseCaseDeps, "notifier" | "logger">,
  resource: ResourceView,
  input: ForceReleaseInput,
  by: ForcedBy,
  how: ForceRelease<T, G>,
): Promise<G[]> {
  const key = { resource: resource.name, businessKey: input.businessKey };
  const removed = await how.remove({
    ...key,
    ...(input.lockId === undefined ? {} : { lockId: input.lockId }),
  });
  for (const grant of removed) {
    how.forget(grant);
    how.audit(
      how.type,
      resource.tenantId,
      key,
      grant,
      { actor: by.actor.slice(0, 128), reason: `${how.what(grant)}: ${by.reason}`.slice(0, 500) },
      (part, record) => {
        if (endHold(part, "force-released", record.at)) {
          part.actor = record.actor;
          part.reason = record.reason;
        }
      },
    );
  }
  if (removed.length > 0) deps.notifier.released(key);
  deps.logger.info(
    {
      op: how.op,
      ...key,
      lockId: input.lockId ?? null,
      removed: removed.map((grant) => grant.lockId),
      actor: by.actor,
      reason: by.reason,
    },
    removed.length > 0 ? how.messages.removed : how.messages.none,
  );
  return removed;
}

/**
 * True when a paged listing holds anything: reads `pageAt` from the first page on, cursor
 * by cursor, and stops at the first page `holds` says yes to.
 */
export async function anyPageHolds<P extends { readonly cursor: string | null }>(
  pageAt: (cursor: string | undefined) => Promise<P>,
  holds: (page: P) => boolean,
): Promise<boolean> {
  let cursor: string | undefined;
  do {
    const page = await pageAt(cursor);
    if (holds(page)) return true;
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return false;
}

const TIERS: readonly Tier[] = ["redis", "mysql", "local"];

/**
 * True while any tier's listing of a resource holds a key: each tier paged on its own
 * (`pageAt(tier, cursor)`), all tiers at once. A tier that cannot answer counts as holding
 * one when it is `current` (refuse rather than guess), else as holding none: a tier the
 * fleet is not on grants nothing new, and its holders may still release.
 */
export async function anyTierHolds(
  current: Tier,
  pageAt: (
    tier: Tier,
    cursor: string | undefined,
  ) => Promise<{ readonly keys: readonly unknown[]; readonly cursor: string | null }>,
): Promise<boolean> {
  const live = await Promise.all(
    TIERS.map(async (tier) => {
      try {
        return await anyPageHolds(
          (cursor) => pageAt(tier, cursor),
          (page) => page.keys.length > 0,
        );
      } catch {
        return tier === current;
      }
    }),
  );
  return live.some(Boolean);
}
