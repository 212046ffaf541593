import { tierStyle, type Tier } from "../lib/tier-style";
import { TierBadge } from "./tier-badge";

/** The tier before login (from the server's public /readyz), so a red tier is seen at once. */
export function PublicTier({
  tier,
  reachable,
}: {
  readonly tier: Tier | null;
  readonly reachable: boolean;
}) {
  return (
    <div className="actions" data-testid="public-tier">
      <TierBadge style={tier === null ? null : tierStyle(tier)} unreachable={!reachable} />
      <span className="muted">{tier === null ? "" : tierStyle(tier).meaning}</span>
    </div>
  );
}
