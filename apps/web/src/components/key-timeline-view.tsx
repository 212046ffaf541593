import { formatClock, formatDuration } from "../lib/format-time";
import type { KeyTimeline } from "../lib/key-timeline";

const LANE_PX = 28;
const END_LABEL = {
  released: "released",
  "force-released": "force-released",
  expired: "expired",
  live: "held now",
  open: "end not seen",
} as const;

/** Props of {@link KeyTimelineView}. */
export interface KeyTimelineViewProps {
  readonly timeline: KeyTimeline | null;
  readonly fromMs: number;
  readonly toMs: number;
  /**
   * The resource's kind: a semaphore's permit grants overlap by design and a read-write
   * lock's readers do (the timeline lists only the overlaps the kind forbids); it names what
   * a bar is.
   */
  readonly kind?: string;
}

const NOUN: Readonly<Record<string, string>> = {
  semaphore: "permit grant",
  rwlock: "read/write grant",
};

/** Who held one key when: one bar per hold, overlaps shaded red, gaps left empty. */
export function KeyTimelineView({ timeline, fromMs, toMs, kind = "mutex" }: KeyTimelineViewProps) {
  if (timeline === null) return <p className="empty">Pick a key.</p>;
  const overlaps = timeline.overlaps;
  const shared = kind === "semaphore";
  const noun = NOUN[kind] ?? "hold";
  const lanes = Math.max(1, timeline.lanes);
  const span = Math.max(1, toMs - fromMs);
  return (
    <div data-testid="key-timeline">
      {overlaps.length > 0 ? (
        <div className="notice tone-red" role="alert">
          {overlaps.length} overlapping hold{overlaps.length === 1 ? "" : "s"}:{" "}
          {kind === "rwlock" ? "a writer with another holder" : "two holders at once"} (local tier,
          or a broken exclusion).
        </div>
      ) : null}
      <div className="timeline" style={{ height: lanes * LANE_PX + 8 }}>
        {overlaps.map((overlap) => (
          <div
            key={overlap.lockIds.join("+")}
            className="timeline-overlap"
            style={{
              left: `${((overlap.fromMs - fromMs) / span) * 100}%`,
              width: `${((overlap.toMs - overlap.fromMs) / span) * 100}%`,
            }}
            title={`overlap ${formatDuration(overlap.toMs - overlap.fromMs)}`}
          />
        ))}
        {timeline.intervals.map((interval) => (
          <div
            key={interval.lockId}
            className={`timeline-bar end-${interval.end}${interval.mode ? ` mode-${interval.mode}` : ""}`}
            style={{
              left: `${interval.leftPct}%`,
              width: `${interval.widthPct}%`,
              top: 4 + interval.lane * LANE_PX,
            }}
            title={`${interval.mode ? `${interval.mode} · ` : ""}${interval.clientId ?? "?"}/${interval.ownerId ?? "?"} · fence ${interval.fence ?? "none"} · ${formatClock(interval.startMs)} → ${formatClock(interval.endMs)} (${formatDuration(interval.endMs - interval.startMs)}) · ${END_LABEL[interval.end]}`}
          >
            {interval.mode ? `${interval.mode === "read" ? "R" : "W"} · ` : ""}
            {interval.clientId ?? "?"} · {interval.fence ?? "no fence"}
          </div>
        ))}
      </div>
      <div className="timeline-axis num" aria-hidden="true">
        <span>{formatClock(fromMs).slice(0, 8)}</span>
        <span>{formatClock(fromMs + span / 2).slice(0, 8)}</span>
        <span>now</span>
      </div>
      <div className="legend">
        <span>
          <i style={{ background: "#15803d" }} />
          held now
        </span>
        <span>
          <i style={{ background: "#2563eb" }} />
          released
        </span>
        <span>
          <i style={{ background: "#b45309" }} />
          expired
        </span>
        <span>
          <i style={{ background: "#b91c1c" }} />
          force-released
        </span>
        {shared ? null : (
          <span>
            <i style={{ background: "rgb(220 38 38 / 40%)" }} />
            overlap
          </span>
        )}
        {kind === "rwlock" ? <span>R = read (readers share), W = write</span> : null}
        <span data-testid="timeline-count">
          {timeline.intervals.length} {noun}
          {timeline.intervals.length === 1 ? "" : "s"}, {timeline.gaps.length} gaps
        </span>
      </div>
      <table className="visually-hidden">
        <caption>Holds of the key</caption>
        <tbody>
          {timeline.intervals.map((interval) => (
            <tr key={interval.lockId}>
              <td>{interval.clientId}</td>
              <td>{interval.mode ?? ""}</td>
              <td>{interval.fence}</td>
              <td>{formatClock(interval.startMs)}</td>
              <td>{formatClock(interval.endMs)}</td>
              <td>{END_LABEL[interval.end]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
