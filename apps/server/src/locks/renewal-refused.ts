import type { LockKey } from "@warden/contract";
import { auditRecord } from "../audit/audit-record.js";
import type { EventHub } from "../audit/event-hub.js";
import type { Metrics } from "../metrics/metrics.js";
import type { LeaseTracker } from "../stats/lease-tracker.js";
import type { StatsCollector } from "../stats/stats-collector.js";
import type { Logger } from "pino";

/** A refused renewal as the extend use case saw it. */
export interface RenewalRefusal extends LockKey {
  readonly lockId: string;
  readonly tenantId: string;
  /** The calling application's metrics label. */
  readonly app: string;
  /** `expired`, `other-holder` or `renewal-limit`. */
  readonly reason: string;
}

/** What recording a refusal needs. */
export interface RenewalRefusedDeps {
  readonly tracker: Pick<LeaseTracker, "find">;
  readonly metrics: Pick<Metrics, "recordRenewFailure">;
  readonly stats: Pick<StatsCollector, "recordRenewFailure">;
  readonly hub: Pick<EventHub, "record">;
  readonly logger: Logger;
}

/**
 * Counts, logs and audits a refused renewal — the console's renewal-failure alert links
 * to these rows. An `expired` refusal is already audited by the store as `expired`. The
 * fence and holder come from the lease this instance saw granted for *this key* under
 * `lockId`: a lockId of another key or tenant finds nothing, so its holder never lands in
 * the caller's rows.
 */
export function recordRenewalRefused(deps: RenewalRefusedDeps, refusal: RenewalRefusal): void {
  const lease = deps.tracker.find(refusal, refusal.lockId);
  deps.metrics.recordRenewFailure(refusal.resource, refusal.app);
  deps.stats.recordRenewFailure(refusal.resource);
  deps.logger.warn(
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
  deps.hub.record(
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
