import { auditRecord } from "../audit/audit-record.js";
import type { TrackedLease } from "../stats/lease-tracker.js";
import type { LiveBus } from "./live-bus.js";

/**
 * Shows live subscribers the leases the tracker found lapsed (their expiry passed with no
 * release seen) as `expired` events. The audit gets its own `lapsed` end from MySQL
 * (docs/decisions/0070); this is the live view of the same fact.
 */
export function publishLapsed(
  live: LiveBus,
  ownerOf: (resource: string) => string | null,
  lapsed: readonly TrackedLease[],
): void {
  if (!live.active) return;
  for (const lease of lapsed) {
    live.publish({
      kind: "event",
      event: auditRecord({
        type: "expired",
        tenantId: ownerOf(lease.resource),
        resource: lease.resource,
        businessKey: lease.businessKey,
        lockId: lease.lockId,
        fence: lease.fence,
        clientId: lease.holder.clientId,
        ownerId: lease.holder.ownerId,
        tier: lease.tier,
        reason: "lapsed: no release before the lease ran out",
        at: lease.expiresAt,
      }),
    });
  }
}
