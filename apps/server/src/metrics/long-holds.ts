import { isLongHold } from "../alerts/conditions.js";
import type { OperatorPrincipal } from "../auth/principal.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { ResourceKind } from "../schemas/resource-policy.js";
import { liveHolds, type LiveHoldSources } from "./live-holds.js";

// Reads the registry for the gauge only: every resource is visible to an operator.
const SCRAPER: OperatorPrincipal = Object.freeze({
  kind: "operator",
  operatorId: 0,
  username: "metrics-scrape",
  role: "viewer",
});

// At most this many unseen resources are read from MySQL per scrape.
const LEARN_PER_SCRAPE = 200;

/** Live holds past 3× their resource's expectedHoldMs, of one resource. */
export interface LongHoldCount {
  readonly resource: string;
  readonly kind: ResourceKind;
  readonly count: number;
}

/**
 * The `warden_long_holds` source: live holds of every kind (mutex leases, semaphore permit
 * grants, read and write grants) past 3× their resource's expectedHoldMs, by resource and
 * kind, decided like the alert evaluator's long-hold alert (`isLongHold`). The trackers hold
 * the fleet's grants when instances share a fleet bus; resources only other instances have
 * served are read from the registry first, so every instance reports the fleet's count
 * (docs/decisions/0110, 0194).
 */
export function longHoldsSource(
  sources: LiveHoldSources,
  registry: ResourceRegistry,
): () => Promise<LongHoldCount[]> {
  return async () => {
    const unseen = new Set<string>();
    for (const hold of liveHolds(sources))
      if (registry.ownerOf(hold.resource) === null) unseen.add(hold.resource);
    await Promise.all(
      [...unseen]
        .slice(0, LEARN_PER_SCRAPE)
        .map((name) => registry.get(name, SCRAPER).catch(() => undefined)),
    );
    const now = Date.now();
    const counts = new Map<string, { resource: string; kind: ResourceKind; count: number }>();
    for (const hold of liveHolds(sources)) {
      if (!isLongHold(now, hold.grantedAt, registry.expectedHoldOf(hold.resource))) continue;
      const id = `${hold.kind}\u0000${hold.resource}`;
      const known = counts.get(id);
      if (known) known.count += 1;
      else counts.set(id, { resource: hold.resource, kind: hold.kind, count: 1 });
    }
    return [...counts.values()];
  };
}
