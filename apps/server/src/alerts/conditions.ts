import type { Tier } from "@warden/contract";
import { ALERT_NAMES, type AlertFact, type AlertKind } from "./alert-types.js";

/** A live hold, as the evaluator reads it from the lease tracker. */
export interface HoldInput {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  readonly grantedAt: number;
  /** What is held: a mutex lease, semaphore permits or a read-write grant (decision 0194). */
  readonly kind?: "mutex" | "semaphore" | "rwlock";
  /** A read-write grant's mode; null for the other kinds. */
  readonly mode?: "read" | "write" | null;
}

/** How an alert names a hold of each kind: "lock", "semaphore permit", "read lock", "write lock". */
function holdNoun(hold: HoldInput): string {
  if (hold.kind === "semaphore") return "semaphore permit";
  if (hold.kind === "rwlock") return hold.mode === "read" ? "read lock" : "write lock";
  return "lock";
}

/** A recent audit event of an alerting type. */
export interface EventInput {
  readonly type: string;
  readonly tenantId: string | null;
  readonly resource: string;
  readonly fence: string | null;
  readonly clientId: string | null;
  readonly lockId: string | null;
  readonly at: number;
}

/** One instance's audit spool, as it reported it. */
export interface SpoolInput {
  readonly instanceId: string;
  readonly events: number;
  readonly full: boolean;
}

/**
 * What one evaluation reads. A part that could not be read is `null`: its alerts keep
 * their last state instead of resolving (a failed read is not a healthy system).
 */
export interface ConditionInputs {
  readonly now: number;
  readonly tier: { readonly tier: Tier; readonly since: number; readonly reason: string };
  readonly holds: readonly HoldInput[] | null;
  /** Owner and expected hold of the resources named by holds and events. */
  readonly resources: ReadonlyMap<
    string,
    { readonly tenantId: string; readonly expectedHoldMs: number | null }
  > | null;
  readonly events: readonly EventInput[] | null;
  readonly localClients:
    | readonly {
        readonly tenantId: string;
        readonly clientId: string;
        readonly since: number;
      }[]
    | null;
  readonly spools: readonly SpoolInput[] | null;
}

/** Thresholds and windows; the windows are the Prometheus rules' (docs/decisions/0110). */
export interface ConditionSettings {
  /** A hold alerts past this many times its resource's expectedHoldMs. @defaultValue 3 */
  readonly longHoldFactor: number;
  /** A stale-fence rejection keeps its resource's alert firing this long, in ms. @defaultValue 10 min */
  readonly staleFenceWindowMs: number;
  /** A refused renewal keeps its resource's alert firing this long, in ms. @defaultValue 5 min */
  readonly renewalWindowMs: number;
}

export const CONDITION_DEFAULTS: ConditionSettings = Object.freeze({
  longHoldFactor: 3,
  staleFenceWindowMs: 600_000,
  renewalWindowMs: 300_000,
});

/** The facts of one evaluation, and the kinds whose inputs could not be read. */
export interface Evaluation {
  readonly facts: AlertFact[];
  readonly unknown: ReadonlySet<AlertKind>;
}

function minutes(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function tierFacts(input: ConditionInputs): AlertFact[] {
  if (input.tier.tier === "redis") return [];
  const local = input.tier.tier === "local";
  return [
    {
      id: "tier",
      kind: "tier",
      severity: local ? "critical" : "warning",
      tenantId: null,
      resource: null,
      labels: { alertname: local ? "WardenLocalTier" : ALERT_NAMES.tier, tier: input.tier.tier },
      summary: local
        ? "Warden is on the LOCAL tier: locks exclude within one process only"
        : "Warden is on the MYSQL tier: Redis is down",
      detail: input.tier.reason,
      href: "/tier",
      startsAt: input.tier.since,
    },
  ];
}

/**
 * Whether a hold granted at `grantedAt` is long at `now`: held past `factor` times its
 * resource's expected hold (a resource without one never has long holds). The alert
 * evaluator and the `warden_long_holds` gauge both decide with this.
 */
export function isLongHold(
  now: number,
  grantedAt: number,
  expectedHoldMs: number | null,
  factor: number = CONDITION_DEFAULTS.longHoldFactor,
): expectedHoldMs is number {
  return expectedHoldMs !== null && now - grantedAt > factor * expectedHoldMs;
}

function holdFacts(input: ConditionInputs, factor: number): AlertFact[] | null {
  if (input.holds === null || input.resources === null) return null;
  const resources = input.resources;
  return input.holds.flatMap((hold): AlertFact[] => {
    const resource = resources.get(hold.resource);
    const expected = resource?.expectedHoldMs ?? null;
    const heldMs = input.now - hold.grantedAt;
    if (resource === undefined || !isLongHold(input.now, hold.grantedAt, expected, factor))
      return [];
    return [
      {
        id: `long-hold:${hold.lockId}`,
        kind: "long-hold",
        severity: heldMs > 10 * expected ? "critical" : "warning",
        tenantId: resource.tenantId,
        resource: hold.resource,
        labels: { alertname: ALERT_NAMES["long-hold"], resource: hold.resource },
        summary: `Long hold on ${hold.resource} / ${hold.businessKey}${hold.kind === undefined || hold.kind === "mutex" ? "" : ` (${holdNoun(hold)})`}`,
        detail: `${hold.clientId}/${hold.ownerId} holds a ${holdNoun(hold)} past ${factor}× its expected ${minutes(expected)}${hold.fence === null ? "" : `; fence ${hold.fence}`}, lock ${hold.lockId}.`,
        href: `/resources/${encodeURIComponent(hold.resource)}`,
        startsAt: hold.grantedAt + factor * expected,
      },
    ];
  });
}

function eventFacts(
  input: ConditionInputs,
  settings: ConditionSettings,
  kind: "stale-fence" | "renewal-failure",
): AlertFact[] | null {
  if (input.events === null || input.resources === null) return null;
  const stale = kind === "stale-fence";
  const windowMs = stale ? settings.staleFenceWindowMs : settings.renewalWindowMs;
  const types = stale ? ["stale-fence"] : ["expired", "renewal-refused"];
  const byResource = new Map<string, EventInput[]>();
  for (const event of input.events) {
    if (!types.includes(event.type) || input.now - event.at > windowMs) continue;
    byResource.set(event.resource, [...(byResource.get(event.resource) ?? []), event]);
  }
  return [...byResource].map(([resource, events]): AlertFact => {
    const first = Math.min(...events.map((event) => event.at));
    const last = events.reduce((a, b) => (b.at > a.at ? b : a));
    const tenantId = input.resources?.get(resource)?.tenantId ?? last.tenantId;
    return {
      id: `${kind}:${resource}`,
      kind,
      severity: stale ? "critical" : "warning",
      tenantId,
      resource,
      labels: { alertname: ALERT_NAMES[kind], resource },
      summary: stale
        ? `Stale fence rejected on ${resource}`
        : `Lease renewals refused on ${resource}`,
      detail: stale
        ? `${events.length} write(s) refused in the last ${minutes(windowMs)}; latest fence ${last.fence ?? "?"}${last.clientId ? ` from ${last.clientId}` : ""}: a holder kept writing after losing its lock.`
        : `${events.length} renewal(s) refused in the last ${minutes(windowMs)}; latest lock ${last.lockId ?? "?"}${last.clientId ? ` of ${last.clientId}` : ""}: holders lost leases while still working.`,
      href: `/events?resource=${encodeURIComponent(resource)}&type=${stale ? "stale-fence" : "expired"}`,
      startsAt: first,
    };
  });
}

function localClientFacts(input: ConditionInputs): AlertFact[] | null {
  if (input.localClients === null) return null;
  const byTenant = new Map<string, { clientId: string; since: number }[]>();
  for (const client of input.localClients)
    byTenant.set(client.tenantId, [...(byTenant.get(client.tenantId) ?? []), client]);
  return [...byTenant].map(([tenantId, clients]): AlertFact => {
    const names = clients.map((client) => client.clientId).sort();
    return {
      id: `local-clients:${tenantId}`,
      kind: "local-clients",
      severity: "critical",
      tenantId,
      resource: null,
      labels: { alertname: ALERT_NAMES["local-clients"], tenant: tenantId },
      summary: `${clients.length} SDK instance${clients.length === 1 ? "" : "s"} of ${tenantId} on local (unfenced) locks`,
      detail: names.slice(0, 5).join(", ") + (names.length > 5 ? " …" : ""),
      href: "/",
      startsAt: Math.min(...clients.map((client) => client.since)),
    };
  });
}

function spoolFacts(input: ConditionInputs): AlertFact[] | null {
  if (input.spools === null) return null;
  return input.spools.flatMap((spool): AlertFact[] => {
    const facts: AlertFact[] = [];
    const labels = { instance: spool.instanceId };
    if (spool.events > 0)
      facts.push({
        id: `audit-backlog:${spool.instanceId}`,
        kind: "audit-backlog",
        severity: "warning",
        tenantId: null,
        resource: null,
        labels: { alertname: ALERT_NAMES["audit-backlog"], ...labels },
        summary: `Audit spool backlog on ${spool.instanceId}`,
        detail: `${spool.events} audit events wait on local disk until MySQL accepts them; searches miss them until then.`,
        href: "/events",
        startsAt: input.now,
      });
    if (spool.full)
      facts.push({
        id: `audit-spool-full:${spool.instanceId}`,
        kind: "audit-spool-full",
        severity: "critical",
        tenantId: null,
        resource: null,
        labels: { alertname: ALERT_NAMES["audit-spool-full"], ...labels },
        summary: `Audit spool full on ${spool.instanceId}: events are being dropped`,
        detail:
          "The audit spool reached its size cap while MySQL is unreachable; new audit events are lost until it drains.",
        href: "/events",
        startsAt: input.now,
      });
    return facts;
  });
}

/** Every alert condition the inputs show, by the console's and the rules' definitions. */
export function evaluateConditions(
  input: ConditionInputs,
  settings: ConditionSettings = CONDITION_DEFAULTS,
): Evaluation {
  const unknown = new Set<AlertKind>();
  const parts: [AlertKind[], AlertFact[] | null][] = [
    [["tier"], tierFacts(input)],
    [["long-hold"], holdFacts(input, settings.longHoldFactor)],
    [["stale-fence"], eventFacts(input, settings, "stale-fence")],
    [["renewal-failure"], eventFacts(input, settings, "renewal-failure")],
    [["local-clients"], localClientFacts(input)],
    [["audit-backlog", "audit-spool-full"], spoolFacts(input)],
  ];
  const facts: AlertFact[] = [];
  for (const [kinds, found] of parts) {
    if (found === null) for (const kind of kinds) unknown.add(kind);
    else facts.push(...found);
  }
  return { facts, unknown };
}
