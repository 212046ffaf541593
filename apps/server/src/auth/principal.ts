/**
 * What an API key may do. `lock`: lock calls, heartbeats and reads of its own tenant;
 * `admin`: also resource policy changes (create, update, retire). A key made before scopes
 * existed is `lock` only (docs/decisions/0100).
 */
export type ApiKeyScope = "lock" | "admin";

/** An operator's role, weakest first. */
export type OperatorRole = "viewer" | "operator" | "admin";

const RANK: Readonly<Record<OperatorRole, number>> = { viewer: 0, operator: 1, admin: 2 };

/** True when `role` is at least `needed`. */
export function roleAtLeast(role: OperatorRole, needed: OperatorRole): boolean {
  return RANK[role] >= RANK[needed];
}

/** A service calling with its tenant's API key. */
export interface TenantPrincipal {
  readonly kind: "tenant";
  readonly tenantId: string;
  readonly keyId: string;
  /** The key's name (the calling application): the `app` label of the lock metrics. */
  readonly keyName?: string;
  /** What the key may do; always includes `lock`. */
  readonly scopes: readonly ApiKeyScope[];
  /** The key reaches only resources whose names start with this (unset or "": every one). */
  readonly resourcePrefix?: string;
  /** The tenant's request-rate quota, per second. */
  readonly requestsPerSecond: number;
}

/** A person logged in to the console. */
export interface OperatorPrincipal {
  readonly kind: "operator";
  readonly operatorId: number;
  readonly username: string;
  readonly role: OperatorRole;
}

/** Who is calling. */
export type Principal = TenantPrincipal | OperatorPrincipal;

/** How a principal is named in the audit trail's `actor` column. */
export function actorOf(principal: Principal): string {
  return principal.kind === "operator"
    ? `operator:${principal.username}`
    : `tenant:${principal.tenantId}/key:${principal.keyId}`;
}
