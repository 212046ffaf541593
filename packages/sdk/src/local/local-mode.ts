import type { Tier } from "@warden/contract";

/** A stretch of time this client held local (unfenced) locks; ms since the Unix epoch. */
export interface LocalPeriod {
  readonly fromMs: number;
  readonly toMs: number;
}

// The server takes at most 100 periods per heartbeat.
const MAX_PENDING = 100;

/**
 * Tracks when this client holds locks on the `local` tier, so that heartbeats tell the
 * server (and the console, which turns red) since when, and report each ended period.
 * Wall-clock instants on purpose: they are timestamps for people, not durations.
 */
export class LocalModeTracker {
  private live = 0;
  private since: number | null = null;
  private ended: LocalPeriod[] = [];

  /** A lease on `tier` started. */
  started(tier: Tier): void {
    if (tier !== "local") return;
    if (this.live++ === 0) this.since = Date.now();
  }

  /** A lease on `tier` ended (lost or released). */
  stopped(tier: Tier): void {
    if (tier !== "local" || this.live === 0) return;
    if (--this.live === 0 && this.since !== null) {
      this.ended.push({ fromMs: this.since, toMs: Math.max(this.since, Date.now()) });
      if (this.ended.length > MAX_PENDING) this.ended.shift();
      this.since = null;
    }
  }

  /** Since when local locks are held, or null. */
  get localSinceMs(): number | null {
    return this.since;
  }

  /** Ended periods not yet reported; hand them back with {@link unreported} if sending fails. */
  takeEnded(): LocalPeriod[] {
    const taken = this.ended;
    this.ended = [];
    return taken;
  }

  /** Puts periods whose report failed back in front. */
  unreported(periods: readonly LocalPeriod[]): void {
    this.ended = [...periods, ...this.ended].slice(-MAX_PENDING);
  }
}
