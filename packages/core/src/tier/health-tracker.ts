/** Options of {@link HealthTracker}. */
export interface HealthTrackerOptions {
  /** Failures in a row that make a backend unhealthy. */
  readonly failuresToDegrade: number;
  /** Successes in a row needed before a backend counts as recovered. */
  readonly successesToRecover: number;
  /** And it must have answered for at least this long, in ms. */
  readonly holdDownMs: number;
}

/**
 * Counts probe results of one backend. Degrading is quick (N failures in a row), coming
 * back is slow (M successes in a row spanning a hold-down), so a flapping backend keeps
 * the fleet on the fallback instead of switching back and forth. Pure: time is passed in.
 */
export class HealthTracker {
  private failures = 0;
  private successes = 0;
  private firstSuccessAtMs: number | undefined;

  constructor(private readonly options: HealthTrackerOptions) {}

  /** Records one probe result taken at `nowMs` (monotonic clock). */
  record(ok: boolean, nowMs: number): void {
    if (ok) {
      this.failures = 0;
      this.successes += 1;
      this.firstSuccessAtMs ??= nowMs;
    } else {
      this.failures += 1;
      this.successes = 0;
      this.firstSuccessAtMs = undefined;
    }
  }

  /** False once `failuresToDegrade` probes in a row have failed. */
  get healthy(): boolean {
    return this.failures < this.options.failuresToDegrade;
  }

  /** True after enough successes in a row over the hold-down. */
  recovered(nowMs: number): boolean {
    return (
      this.successes >= this.options.successesToRecover &&
      this.firstSuccessAtMs !== undefined &&
      nowMs - this.firstSuccessAtMs >= this.options.holdDownMs
    );
  }
}
