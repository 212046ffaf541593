import { monotonicNow } from "../time/monotonic.js";
import { backgroundTimeout } from "../time/timers.js";

/** A renewal waiting for its time; cancel it when the lease stops. */
export interface ScheduledRenewal {
  cancel(): void;
}

interface Entry {
  /** Monotonic instant the renewal is due. */
  readonly at: number;
  /** How much earlier it may run, in ms, to share a batch with others. */
  readonly earlyMs: number;
  readonly run: () => void;
}

/**
 * Longest a renewal is moved forward to join a batch, in ms: with leases of a third of a
 * minute or more (renewed every 20 s), one client's renewals leave at most about once a
 * second, however many leases it holds.
 */
export const RENEWAL_WINDOW_MS = 1_000;

/**
 * The client's one clock for its watchdogs (docs/decisions/0066-bulk-renewals.md). One
 * timer, at the earliest due renewal; when it fires, every renewal due within the window
 * runs in the same turn, so the transport sends them as one bulk `renew` command. A
 * renewal runs early by at most {@link RENEWAL_WINDOW_MS} and at most a quarter of its
 * own period, never late: the watchdog's deadline arithmetic is unchanged.
 */
export class RenewalClock {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  /** Runs `run` at `at` (monotonic ms), or up to `earlyMs` sooner together with others. */
  schedule(at: number, earlyMs: number, run: () => void): ScheduledRenewal {
    const entry: Entry = { at, earlyMs: Math.max(0, Math.min(earlyMs, RENEWAL_WINDOW_MS)), run };
    this.entries.add(entry);
    if (at < this.timerAt) this.arm(at);
    return {
      cancel: () => {
        this.entries.delete(entry);
        if (this.entries.size === 0) this.disarm();
      },
    };
  }

  /** Renewals waiting. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops every renewal (the client closed). */
  clear(): void {
    this.entries.clear();
    this.disarm();
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = backgroundTimeout(() => this.fire(), at - monotonicNow());
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = monotonicNow();
    const due: Entry[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.entries) {
      if (entry.at - entry.earlyMs <= now) due.push(entry);
      else if (entry.at < next) next = entry.at;
    }
    for (const entry of due) this.entries.delete(entry);
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const entry of due) entry.run();
  }
}
