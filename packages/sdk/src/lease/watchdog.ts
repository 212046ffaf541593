import { LeaseLostError, NotHolderError } from "@warden/contract";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { monotonicNow } from "../time/monotonic.js";
import { backgroundTimeout } from "../time/timers.js";
import type { RenewalClock, ScheduledRenewal } from "./renewal-clock.js";

/** What the watchdog renews and whom it tells. */
export interface WatchdogHooks {
  /**
   * Renews the lease; resolves with the store's remaining lease in ms. Rejects with
   * `NotHolderError` when the store refuses (the lease is gone), anything else when the
   * outcome is not known.
   */
  renew(leaseMs: number | undefined): Promise<{ readonly ttlMs: number }>;
  /** The lease may be lost: called once, after the watchdog stopped. */
  onLost(error: LeaseLostError): void;
  /**
   * The client's clock that lines renewals up so they leave together (one bulk command);
   * without it the watchdog keeps its own timer.
   */
  readonly clock?: RenewalClock;
}

/** Settings of one lease's watchdog, in ms. */
export interface WatchdogSettings {
  readonly lockId: string;
  /** Lease length asked for at each renewal; undefined = the resource's default. */
  readonly leaseMs: number | undefined;
  /** Lease length the renewal period is derived from (what the store granted). */
  readonly nominalLeaseMs: number;
  readonly safetyMarginMs: number;
  /** Renewals this grant may make; null = unlimited. */
  readonly maxRenewals: number | null;
}

// A failing renewal is retried quickly (the deadline is near), with jitter so that a
// fleet does not hammer a recovering server in step.
const RETRY_BASE_MS = 50;

/**
 * Keeps one lease alive: renews at a third of the lease, and declares the lease lost —
 * before the store could grant the key to anyone else — when no renewal has been
 * confirmed by `sentAt + ttl - margin`, where `sentAt` is when the last confirmed renewal
 * (or the grant request) was SENT, on the monotonic clock: a slow reply never stretches
 * the client's belief past the store's expiry. A refused renewal is a loss at once.
 */
export class Watchdog {
  private renewTimer: NodeJS.Timeout | undefined;
  private scheduled: ScheduledRenewal | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineAt = 0;
  private failures = 0;
  private stopped = false;
  private busy = false;
  private inflight: Promise<void> = Promise.resolve();
  /** True from a renewal's start until `inflight` has settled. */
  private renewing = false;
  private leaseMs: number | undefined;
  private periodMs: number;
  private marginMs: number;
  /** Renewals confirmed so far. */
  renewals = 0;

  constructor(
    private readonly settings: WatchdogSettings,
    private readonly hooks: WatchdogHooks,
  ) {
    this.leaseMs = settings.leaseMs;
    this.periodMs = settings.nominalLeaseMs / 3;
    this.marginMs = Math.min(settings.safetyMarginMs, settings.nominalLeaseMs / 3);
  }

  /** Monotonic instant after which the lease counts as lost unless renewed. */
  get deadline(): number {
    return this.deadlineAt;
  }

  /** Starts from a grant whose request was sent at `sentAt` and left `ttlMs` of lease. */
  start(sentAt: number, ttlMs: number): void {
    this.confirm(sentAt, ttlMs);
    this.scheduleRenewal(sentAt + this.periodMs);
  }

  /**
   * Renews now (an explicit `lock.extend`), after any renewal in flight, and returns once
   * the store confirmed it.
   */
  async renewNow(leaseMs: number | undefined): Promise<void> {
    while (this.busy) await this.inflight;
    if (this.stopped) throw new LeaseLostError(this.settings.lockId, "the lock is not held");
    if (leaseMs !== undefined) {
      this.leaseMs = leaseMs;
      this.periodMs = leaseMs / 3;
      this.marginMs = Math.min(this.settings.safetyMarginMs, leaseMs / 3);
    }
    const attempt = this.renewOnce();
    this.track(
      attempt.then(
        () => undefined,
        (error: unknown) => this.afterFailure(error),
      ),
    );
    await attempt;
  }

  /**
   * Stops renewing (stop BEFORE release). Returns the renewal in flight, to await before
   * releasing, or undefined when there is none: most leases end between renewals, and a
   * release should not pay for a promise it does not need.
   */
  stop(): Promise<void> | undefined {
    this.stopped = true;
    this.cancelRenewal();
    clearTimeout(this.deadlineTimer);
    return this.renewing ? this.inflight : undefined;
  }

  private track(renewal: Promise<void>): void {
    this.inflight = renewal;
    this.renewing = true;
    void renewal.then(() => {
      if (this.inflight === renewal) this.renewing = false;
    });
  }

  private scheduleRenewal(at: number): void {
    this.cancelRenewal();
    if (this.stopped) return;
    const { clock } = this.hooks;
    // Early by at most a quarter of the period: the lease is renewed a little sooner, never later.
    if (clock) this.scheduled = clock.schedule(at, this.periodMs / 4, () => this.tick());
    else this.renewTimer = backgroundTimeout(() => this.tick(), at - monotonicNow());
  }

  private cancelRenewal(): void {
    clearTimeout(this.renewTimer);
    this.scheduled?.cancel();
    this.scheduled = undefined;
  }

  private tick(): void {
    // Renewals never overlap: each confirmed reply then describes the store's latest expiry.
    if (this.stopped || this.busy) return;
    const { maxRenewals } = this.settings;
    // Out of renewals: the lease runs out and the deadline timer reports it.
    if (maxRenewals !== null && this.renewals >= maxRenewals) return;
    this.track(
      this.renewOnce().then(
        () => undefined,
        (error: unknown) => this.afterFailure(error),
      ),
    );
  }

  private async renewOnce(): Promise<void> {
    const sentAt = monotonicNow();
    const leaseMs = this.leaseMs;
    this.busy = true;
    try {
      const { ttlMs } = await this.hooks.renew(leaseMs);
      if (this.stopped) return;
      this.renewals += 1;
      this.failures = 0;
      this.confirm(sentAt, ttlMs);
      this.scheduleRenewal(sentAt + this.periodMs);
    } catch (error) {
      if (error instanceof NotHolderError && !this.stopped) {
        this.lose(`renewal of lock ${this.settings.lockId} refused: ${error.message}`, error);
      } else if (!this.stopped) {
        // It may have been applied: a shorter lease than before would end the lease sooner.
        this.setDeadline(
          Math.min(
            this.deadlineAt,
            sentAt + (leaseMs ?? this.settings.nominalLeaseMs) - this.marginMs,
          ),
        );
      }
      throw error;
    } finally {
      this.busy = false;
    }
  }

  private afterFailure(error: unknown): void {
    if (this.stopped || error instanceof NotHolderError) return;
    // Not confirmed: retry until the deadline; the deadline timer declares the loss.
    const untilDeadlineMs = this.deadlineAt - monotonicNow();
    const delayMs = fullJitterDelayMs(this.failures++, RETRY_BASE_MS, this.periodMs / 2);
    if (delayMs < untilDeadlineMs) this.scheduleRenewal(monotonicNow() + delayMs);
  }

  /** The store set the lease to `ttlMs` from some instant after `sentAt`. */
  private confirm(sentAt: number, ttlMs: number): void {
    this.setDeadline(sentAt + ttlMs - this.marginMs);
  }

  private setDeadline(deadline: number): void {
    if (deadline === this.deadlineAt) return;
    this.deadlineAt = deadline;
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = backgroundTimeout(() => this.onDeadline(), deadline - monotonicNow());
  }

  private onDeadline(): void {
    if (this.stopped) return;
    const { maxRenewals, lockId } = this.settings;
    const why =
      maxRenewals !== null && this.renewals >= maxRenewals
        ? `lock ${lockId} used its ${maxRenewals} renewals; its lease may expire now`
        : `lock ${lockId}: no renewal confirmed before the lease may expire`;
    this.lose(why);
  }

  private lose(message: string, cause?: unknown): void {
    this.stopped = true;
    this.cancelRenewal();
    clearTimeout(this.deadlineTimer);
    this.hooks.onLost(
      new LeaseLostError(this.settings.lockId, message, cause === undefined ? {} : { cause }),
    );
  }
}
