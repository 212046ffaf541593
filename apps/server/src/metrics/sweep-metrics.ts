import type { SweepListener, SweepReport, SweeperName } from "@warden/core";
import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";

const SWEEPERS: readonly SweeperName[] = ["lease", "rwlock", "semaphore"];
const OUTCOMES: readonly SweepReport["outcome"][] = ["ok", "failed"];

/**
 * What the MySQL sweepers' passes say, as metrics and log lines (docs/decisions/0220). The
 * sweepers are opened with the tiers, before the server's registry exists: `listener` is
 * handed to the openers first and {@link registerOn} adds the counters to the registry once
 * it does. Every sweeper × outcome series exists from the start at 0, so a first failure is
 * an `increase()` like any other.
 */
export class SweepMetrics {
  private readonly passes = new Counter({
    name: "warden_mysql_sweeps_total",
    help: "Passes of this instance's MySQL sweepers (lease rows and dead fair waiters, read-write and semaphore tables) by outcome; a sweeper whose passes all fail lets its tables grow",
    labelNames: ["sweeper", "outcome"],
    registers: [],
  });
  private readonly rows = new Counter({
    name: "warden_mysql_swept_rows_total",
    help: "Rows the MySQL sweepers' passes removed (ended leases, dead waiters, expired grants and permits, lapsed intents, idle key rows)",
    labelNames: ["sweeper"],
    registers: [],
  });

  constructor(private readonly logger: Logger) {
    for (const sweeper of SWEEPERS) {
      this.rows.labels({ sweeper }).inc(0);
      for (const outcome of OUTCOMES) this.passes.labels({ sweeper, outcome }).inc(0);
    }
  }

  /** Hand to the openers' `onSweep`. */
  readonly listener: SweepListener = (report) => {
    this.passes.labels({ sweeper: report.sweeper, outcome: report.outcome }).inc();
    if (report.outcome === "ok") {
      this.rows.labels({ sweeper: report.sweeper }).inc(report.rows);
      return;
    }
    this.logger.warn(
      { err: report.error, sweeper: report.sweeper, durationMs: Math.round(report.durationMs) },
      "MySQL sweeper pass failed; the next pass retries, its tables grow until one succeeds",
    );
  };

  /** Adds the counters to the server's registry. */
  registerOn(registry: Registry): void {
    registry.registerMetric(this.passes);
    registry.registerMetric(this.rows);
  }
}
