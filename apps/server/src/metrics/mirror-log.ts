import type { MirrorListener } from "@warden/core";
import type { Logger } from "pino";

/** A stretch of refused batches: since when, how many, what a full buffer dropped meanwhile. */
interface Failing {
  readonly sinceMs: number;
  batches: number;
  dropped: number;
  loggedAtMs: number;
}

/**
 * The Redis lease mirror's failures in the log (docs/decisions/0221). The mirror tries every
 * 200 ms while MySQL refuses it, so a line per batch would flood the log: a failing stretch
 * logs its first batch, then at most one line per `everyMs` with the count so far, and one
 * line when a batch works again. The counters on /metrics carry every batch.
 */
export class MirrorLog {
  private failing: Failing | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly everyMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Hand to `openTieredLocks`' `onMirrorBatch`. */
  readonly listener: MirrorListener = (report) => {
    const now = this.now();
    const failing = this.failing;
    if (report.outcome === "ok") {
      if (!failing) return;
      this.failing = undefined;
      this.logger.info(
        {
          failedBatches: failing.batches,
          dropped: failing.dropped,
          durationMs: now - failing.sinceMs,
        },
        "Redis lease mirror writes to MySQL again",
      );
      return;
    }
    if (!failing) {
      this.failing = { sinceMs: now, batches: 1, dropped: report.dropped, loggedAtMs: now };
    } else {
      failing.batches += 1;
      failing.dropped += report.dropped;
      if (now - failing.loggedAtMs < this.everyMs) return;
      failing.loggedAtMs = now;
    }
    const stretch = this.failing!;
    this.logger.warn(
      {
        err: report.error,
        kept: report.kept,
        failedBatches: stretch.batches,
        dropped: stretch.dropped,
        durationMs: now - stretch.sinceMs,
      },
      "Redis lease mirror batch refused by MySQL; its changes are retried with the next batch, but until one is written a degrade to MySQL does not know those leases",
    );
  };
}
