import type { ResourceKind, ResourcePolicy } from "../schemas/resource-policy.js";

/** A registered resource as the API returns it. Times are ms since the Unix epoch. */
export interface ResourceView extends ResourcePolicy {
  readonly name: string;
  readonly tenantId: string;
  readonly retiredAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The Prisma `select` every resource read uses. */
export const RESOURCE_SELECT = {
  name: true,
  tenantId: true,
  defaultLeaseMs: true,
  maxLeaseMs: true,
  maxRenewals: true,
  expectedHoldMs: true,
  releaseOnDisconnectMs: true,
  lockDelayMs: true,
  kind: true,
  permits: true,
  writerPreference: true,
  degrade: true,
  localFallback: true,
  fair: true,
  waitReplicas: true,
  description: true,
  retiredAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

interface ResourceRow extends Omit<ResourcePolicy, "kind"> {
  /** A string column (later kinds need no migration); only known kinds are ever written. */
  kind: string;
  name: string;
  tenantId: string;
  retiredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Turns a selected row into the API's view. */
export function toResourceView(row: ResourceRow): ResourceView {
  return {
    name: row.name,
    tenantId: row.tenantId,
    defaultLeaseMs: row.defaultLeaseMs,
    maxLeaseMs: row.maxLeaseMs,
    maxRenewals: row.maxRenewals,
    expectedHoldMs: row.expectedHoldMs,
    releaseOnDisconnectMs: row.releaseOnDisconnectMs,
    lockDelayMs: row.lockDelayMs,
    kind: row.kind as ResourceKind,
    permits: row.permits,
    writerPreference: row.writerPreference,
    degrade: row.degrade,
    localFallback: row.localFallback,
    fair: row.fair,
    waitReplicas: row.waitReplicas,
    description: row.description,
    retiredAt: row.retiredAt?.getTime() ?? null,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}
