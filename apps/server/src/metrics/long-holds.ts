import { countLongHolds } from "../alerts/conditions.js";
import type { OperatorPrincipal } from "../auth/principal.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { LeaseTracker } from "../stats/lease-tracker.js";

// Reads the registry for the gauge only: every resource is visible to an operator.
const SCRAPER: OperatorPrincipal = Object.freeze({
  kind: "operator",
  operatorId: 0,
  username: "metrics-scrape",
  role: "viewer",
});

// At most this many unseen resources are read from MySQL per scrape.
const LEARN_PER_SCRAPE = 200;

/**
 * The `warden_long_holds` source: live holds past 3× their resource's expectedHoldMs, by
 * resource, decided like the alert evaluator's long-hold alert (`isLongHold`). The tracker
 * holds the fleet's leases when instances share a fleet bus; resources only other
 * instances have served are read from the registry first, so every instance reports the
 * fleet's count (docs/decisions/0110).
 */
export function longHoldsSource(
  tracker: LeaseTracker,
  registry: ResourceRegistry,
): () => Promise<Map<string, number>> {
  return async () => {
    const unseen = new Set<string>();
    for (const lease of tracker.all())
      if (registry.ownerOf(lease.resource) === null) unseen.add(lease.resource);
    await Promise.all(
      [...unseen]
        .slice(0, LEARN_PER_SCRAPE)
        .map((name) => registry.get(name, SCRAPER).catch(() => undefined)),
    );
    return countLongHolds(tracker.all(), (name) => registry.expectedHoldOf(name), Date.now());
  };
}
