import type { ResourceDetailView } from "../hooks/use-resource-detail";
import { formatDuration } from "../lib/format-time";

/** A resource's policy as a compact list. */
export function PolicyFacts({
  resource,
}: {
  readonly resource: NonNullable<ResourceDetailView["resource"]>;
}) {
  return (
    <dl className="facts num">
      <dt>tenant</dt>
      <dd>{resource.tenantId}</dd>
      <dt>defaultLeaseMs</dt>
      <dd>
        {resource.defaultLeaseMs} ({formatDuration(resource.defaultLeaseMs)})
      </dd>
      <dt>maxLeaseMs</dt>
      <dd>
        {resource.maxLeaseMs} ({formatDuration(resource.maxLeaseMs)})
      </dd>
      <dt>maxRenewals</dt>
      <dd>{resource.maxRenewals ?? "unlimited"}</dd>
      <dt>expectedHoldMs</dt>
      <dd>
        {resource.expectedHoldMs === null
          ? "— (no alert)"
          : `${resource.expectedHoldMs} (alert past 3×)`}
      </dd>
      <dt>degrade</dt>
      <dd>{resource.degrade ? "yes, to MySQL" : "no: refused while Redis is down"}</dd>
      <dt>localFallback</dt>
      <dd>
        {resource.localFallback === "allow"
          ? "allow (unfenced in-process locks)"
          : "deny (fail-closed)"}
      </dd>
      <dt>fair</dt>
      <dd>{resource.fair ? "yes (FIFO)" : "no"}</dd>
      <dt>waitReplicas</dt>
      <dd>{resource.waitReplicas}</dd>
    </dl>
  );
}
