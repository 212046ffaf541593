import type { AcquireSplit } from "../lib/chart-rows";

/** Granted / refused / failed shares of acquires as one bar with its numbers. */
export function SplitBar({ split }: { readonly split: AcquireSplit }) {
  return (
    <div>
      <div className="split-bar" aria-hidden="true">
        <span style={{ width: `${split.grantedPct}%`, background: "#16a34a" }} />
        <span style={{ width: `${split.refusedPct}%`, background: "#d97706" }} />
        <span style={{ width: `${split.failedPct}%`, background: "#dc2626" }} />
      </div>
      <div className="num">
        {split.grantedPct}% granted · {split.refusedPct}% refused/timed out · {split.failedPct}%
        unavailable
      </div>
    </div>
  );
}
