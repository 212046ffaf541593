const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const pad2 = (value: number) => String(value).padStart(2, "0");

/**
 * A duration for people: `850 ms`, `4.2 s`, `3 m 05 s`, `2 h 07 m`, `3 d 04 h`.
 * Negative durations are shown as their magnitude; callers say "ago" or "left".
 */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (!Number.isFinite(abs)) return "—";
  if (abs < SECOND_MS) return `${Math.round(abs)} ms`;
  if (abs < 10 * SECOND_MS) return `${(Math.floor(abs / 100) / 10).toFixed(1)} s`;
  if (abs < MINUTE_MS) return `${Math.floor(abs / SECOND_MS)} s`;
  if (abs < HOUR_MS)
    return `${Math.floor(abs / MINUTE_MS)} m ${pad2(Math.floor((abs % MINUTE_MS) / SECOND_MS))} s`;
  if (abs < DAY_MS)
    return `${Math.floor(abs / HOUR_MS)} h ${pad2(Math.floor((abs % HOUR_MS) / MINUTE_MS))} m`;
  return `${Math.floor(abs / DAY_MS)} d ${pad2(Math.floor((abs % DAY_MS) / HOUR_MS))} h`;
}

/** A compact duration for axis labels: `20ms`, `1.5s`, `2s`, `1m`. */
export function formatShortDuration(ms: number): string {
  if (ms < SECOND_MS) return `${Math.round(ms)}ms`;
  if (ms < MINUTE_MS) return `${Math.round((ms / SECOND_MS) * 10) / 10}s`;
  return `${Math.round((ms / MINUTE_MS) * 10) / 10}m`;
}

/** How long ago `sinceMs` was, at `nowMs`: `4.2 s`; never negative (clock skew shows as 0 ms). */
export function formatAge(sinceMs: number, nowMs: number): string {
  return formatDuration(Math.max(0, nowMs - sinceMs));
}

/** A countdown to a lease's expiry, for a cell that ticks every second. */
export interface Countdown {
  /** `0:07`, `12:03`, `1:02:03`; `expired` once past. */
  readonly text: string;
  /** Milliseconds left, clamped at 0. */
  readonly remainingMs: number;
  /** `ok` while more than a third of the lease is left, `low` in the last third, `expired` after. */
  readonly state: "ok" | "low" | "expired";
}

/**
 * The countdown to `expiresAtMs`. `nowMs` should be the browser's clock corrected by the
 * server's (see {@link clockOffsetMs}): the lease ends on the store's clock. Seconds are
 * rounded up so that `0:00` is never shown for a lease that is still live.
 */
export function countdown(expiresAtMs: number, nowMs: number, leaseMs?: number): Countdown {
  const remainingMs = Math.max(0, expiresAtMs - nowMs);
  if (remainingMs === 0) return { text: "expired", remainingMs, state: "expired" };
  const totalSeconds = Math.ceil(remainingMs / SECOND_MS);
  const hours = Math.floor(totalSeconds / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  const text =
    hours > 0 ? `${hours}:${pad2(minutes)}:${pad2(seconds)}` : `${minutes}:${pad2(seconds)}`;
  const low = leaseMs !== undefined && leaseMs > 0 && remainingMs < leaseMs / 3;
  return { text, remainingMs, state: low ? "low" : "ok" };
}

/**
 * The server's clock minus the browser's, in ms, from a reply stamped with the server's
 * time: half the round trip is assumed on each leg. Countdowns add it to `Date.now()`.
 */
export function clockOffsetMs(serverNowMs: number, sentAtMs: number, receivedAtMs: number): number {
  return Math.round(serverNowMs - (sentAtMs + receivedAtMs) / 2);
}

/** A wall-clock instant as `HH:MM:SS.mmm` (UTC when `utc`), for tables and tooltips. */
export function formatClock(atMs: number, utc = false): string {
  const date = new Date(atMs);
  const [h, m, s, ms] = utc
    ? [date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()]
    : [date.getHours(), date.getMinutes(), date.getSeconds(), date.getMilliseconds()];
  return `${pad2(h)}:${pad2(m)}:${pad2(s)}.${String(ms).padStart(3, "0")}`;
}

/** A wall-clock instant as `YYYY-MM-DD HH:MM:SS` in local time, for event tables. */
export function formatDateTime(atMs: number): string {
  const d = new Date(atMs);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}
