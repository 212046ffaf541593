import Link from "next/link";
import type { LiveStatus } from "../hooks/use-live-updates";
import { formatDuration } from "../lib/format-time";
import type { TierStyle } from "../lib/tier-style";
import { TierBadge } from "./tier-badge";

/** Props of {@link TopBar}. */
export interface TopBarProps {
  readonly tierStyle: TierStyle | null;
  readonly unreachable: boolean;
  readonly tierSince: number | null;
  readonly nowMs: number;
  readonly live: LiveStatus;
  readonly username: string | null;
  readonly role: string | null;
  readonly onLogout: () => void;
  readonly loggingOut: boolean;
}

const LIVE_TEXT: Record<LiveStatus, string> = {
  live: "live",
  connecting: "connecting…",
  offline: "polling",
};

/** Brand, the tier on every page, the live indicator and the operator. */
export function TopBar(props: TopBarProps) {
  return (
    <header className="topbar">
      <Link href="/" className="topbar-brand">
        Warden
      </Link>
      <Link href="/tier" aria-label="Tier details">
        <TierBadge style={props.tierStyle} unreachable={props.unreachable} />
      </Link>
      {props.tierSince !== null ? (
        <span className="muted num">since {formatDuration(props.nowMs - props.tierSince)}</span>
      ) : null}
      <span className="topbar-spacer" />
      <span
        className={`pill ${props.live === "live" ? "tone-green" : "tone-gray"}`}
        title="Live updates: SSE subscription, with 2 s polling as the floor"
        data-testid="live-status"
      >
        {LIVE_TEXT[props.live]}
      </span>
      <span className="topbar-user">
        {props.username ? (
          <span>
            {props.username} <span className="faint">({props.role})</span>
          </span>
        ) : null}
        <button
          type="button"
          className="button button-small"
          onClick={props.onLogout}
          disabled={props.loggingOut}
        >
          Log out
        </button>
      </span>
    </header>
  );
}
