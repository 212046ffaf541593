/** A latency in ms with precision where it matters: `0.412`, `3.27`, `41.2`, `1204`; `–` when NaN. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms < 1) return ms.toFixed(3);
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return ms.toFixed(0);
}

/** A rate as a whole number with thin grouping: `12 345`. */
export function formatRate(perSec: number): string {
  return Math.round(perSec)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

/** A share in [0, 1] as a percentage: `99.8%`, `100%`. */
export function formatShare(share: number): string {
  if (!Number.isFinite(share)) return "–";
  return share >= 1 ? "100%" : `${(share * 100).toFixed(1)}%`;
}

/** A ratio: `0.47×`; `–` when not measured. */
export function formatRatio(ratio: number | null): string {
  return ratio === null || !Number.isFinite(ratio) ? "–" : `${ratio.toFixed(2)}×`;
}
