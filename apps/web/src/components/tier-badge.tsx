import type { TierStyle } from "../lib/tier-style";

/** The current tier as a coloured pill; `unknown` while the server cannot be asked. */
export function TierBadge({
  style,
  unreachable,
}: {
  readonly style: TierStyle | null;
  readonly unreachable?: boolean;
}) {
  if (style === null) {
    return (
      <span className="tier-badge tone-unknown" data-testid="tier-badge" data-tier="unknown">
        {unreachable ? "SERVER UNREACHABLE" : "TIER …"}
      </span>
    );
  }
  return (
    <span
      className={`tier-badge tone-${style.tone}`}
      data-testid="tier-badge"
      data-tier={style.tier}
      title={style.meaning}
    >
      <span className="visually-hidden">Tier: </span>
      {style.label}
    </span>
  );
}
