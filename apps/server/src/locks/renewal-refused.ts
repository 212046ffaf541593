import type { LockKey } from "@warden/core";
import { auditRecord } from "../audit/audit-record.js";
import type { Services } from "../context.js";

/** A refused renewal as the extend procedure saw it. */
export interface RenewalRefusal extends LockKey {
  readonly lockId: string;
  readonly tenantId: string;
  /** `expired`, `other-holder` or `renewal-limit`. */
  readonly reason: string;
}

/**
 * Counts, logs and audits a refused renewal — the console's renewal-failure alert links
 * to these rows. An `expired` refusal is already audited by the store as `expired`.
 */
export function recordRenewalRefused(services: Services, refusal: RenewalRefusal): void {
  const lease = services.tracker.get(refusal.lockId);
  services.metrics.renewFailures.inc({ resource: refusal.resource });
  services.stats.recordRenewFailure(refusal.resource);
  services.logger.warn(
    {
      op: "extend",
      resource: refusal.resource,
      businessKey: refusal.businessKey,
      lockId: refusal.lockId,
      fence: lease?.fence ?? null,
      reason: refusal.reason,
    },
    "renewal refused",
  );
  if (refusal.reason === "expired") return;
  services.hub.record(
    auditRecord({
      type: "renewal-refused",
      tenantId: refusal.tenantId,
      resource: refusal.resource,
      businessKey: refusal.businessKey,
      lockId: refusal.lockId,
      fence: lease?.fence ?? null,
      clientId: lease?.holder.clientId ?? null,
      ownerId: lease?.holder.ownerId ?? null,
      tier: lease?.tier ?? null,
      reason: refusal.reason,
      at: Date.now(),
    }),
  );
}
