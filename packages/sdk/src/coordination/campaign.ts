import {
  ForbiddenError,
  InvalidArgumentError,
  LeaseLostError,
  LIMITS,
  LockTimeoutError,
  LockUnavailableError,
  UnauthorizedError,
  UnknownResourceError,
  validateLockKey,
  type Holder,
} from "@warden/contract";
import type { Warden } from "../client/warden.js";
import type { StaleFenceReport } from "../guards/fenced-holder.js";
import type { Lock } from "../lock/lock.js";
import { checkMs } from "../options/check.js";
import { MAX_WAIT_MS } from "../options/resolve-acquire-options.js";
import { newOwnerId } from "../owner/owner-scope.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { sleep } from "../time/timers.js";

/** Why a leader stopped leading. */
export type DemotionReason =
  /**
   * Its lease may be lost (renewal refused or unconfirmed, force-released, client closed),
   * or a fence guard found a later term at the resource (the term is superseded).
   */
  | "lease-lost"
  /** `resign()` was called. */
  | "resigned";

/** One term of leadership, as `onElected` gets it. */
export interface Leadership {
  /** The term: the grant's fence (decimal), larger than every earlier leader's term. */
  readonly term: string;
  /** Aborts when this term ends (lease may be lost, or resigned), before `onDemoted` runs. */
  readonly signal: AbortSignal;
  /**
   * The lock that makes this candidate the leader: pass it to fence guards. A guard that
   * finds a later term at the resource (a `stale` outcome) ends this term at once, as a
   * lost lease does: a later term exists, so this one no longer leads.
   */
  readonly lock: Lock;
}

/** Options of `warden.campaign`. Durations in ms. */
export interface CampaignOptions {
  /**
   * Called when this candidate becomes leader. Start the leader's work here and stop it
   * when `leadership.signal` aborts. A returned promise is not awaited (a rejection goes
   * to `onError`): the campaign watches the lease meanwhile.
   */
  readonly onElected?: (term: string, leadership: Leadership) => void | Promise<void>;
  /**
   * Called when this candidate stops being leader, right after the term's signal aborted
   * and before its lock is released. Unless resigned, the candidate then campaigns again.
   */
  readonly onDemoted?: (reason: DemotionReason, term: string, cause?: unknown) => void;
  /** Errors that did not end the campaign: the server unreachable, a callback that threw. */
  readonly onError?: (error: unknown) => void;
  /**
   * Lease of the leader's lock (1..60 000): how long a crashed leader blocks the
   * election of the next one.
   * @defaultValue the resource's `defaultLeaseMs`
   */
  readonly leaseMs?: number;
  /**
   * How long one round waits in the server's queue before asking again (1..300 000).
   * Waiting is server-side (woken on release or expiry), not polling.
   * @defaultValue 30 000
   */
  readonly waitMs?: number;
  /** First / largest backoff after a failed round (server unreachable), full jitter. */
  readonly retryBaseDelayMs?: number;
  readonly retryMaxDelayMs?: number;
}

/** The current leader of an election, as `observe()` reports it. */
export interface LeaderInfo {
  /** The leader's SDK instance and owner. */
  readonly holder: Holder;
  /** Its term: the fence of its grant (null only for a `local`-tier lease, never a campaign's). */
  readonly term: string | null;
  /** When its term began (the grant), ms since the Unix epoch on the store's clock. */
  readonly since: number;
  /** Its lease's expiry on the store's clock (moved on by every renewal). */
  readonly expiresAt: number;
  readonly lockId: string;
  /** True when the leader is this campaign. */
  readonly self: boolean;
}

/** Options of {@link Campaign.watch}. */
export interface WatchOptions {
  /** Time between two looks at the leader, in ms (50..60 000). @defaultValue 1 000 */
  readonly intervalMs?: number;
  /** Largest pause after failed looks (capped exponential backoff, full jitter). @defaultValue 10 000 */
  readonly maxIntervalMs?: number;
  /** Ends the iteration. */
  readonly signal?: AbortSignal;
}

const DEFAULT_WAIT_MS = 30_000;

/** Errors no later round can cure: the campaign ends with them. */
function isFatal(error: unknown): boolean {
  return (
    error instanceof UnknownResourceError ||
    error instanceof InvalidArgumentError ||
    error instanceof UnauthorizedError ||
    error instanceof ForbiddenError
  );
}

/**
 * Starts campaigning: see {@link Warden.campaign}.
 * @internal Called through `warden.campaign`.
 */
export async function campaign(
  warden: Warden,
  resource: string,
  businessKey: string,
  options: CampaignOptions = {},
): Promise<Campaign> {
  const key = validateLockKey({ resource, businessKey });
  for (const name of ["onElected", "onDemoted", "onError"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new InvalidArgumentError(name, "must be a function");
    }
  }
  const settings: CampaignSettings = {
    leaseMs: checkMs("leaseMs", options.leaseMs, 1, LIMITS.maxLeaseMs),
    waitMs: checkMs("waitMs", options.waitMs, 1, MAX_WAIT_MS) ?? DEFAULT_WAIT_MS,
    retryBaseDelayMs: checkMs("retryBaseDelayMs", options.retryBaseDelayMs, 1, 60_000) ?? 100,
    retryMaxDelayMs: checkMs("retryMaxDelayMs", options.retryMaxDelayMs, 1, 300_000) ?? 5_000,
  };
  // An unknown resource is refused here, typed; an unreachable server is not an error yet.
  await warden.policy(key.resource);
  return new Campaign(warden, key.resource, key.businessKey, options, settings);
}

interface CampaignSettings {
  readonly leaseMs: number | undefined;
  readonly waitMs: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
}

/**
 * A candidate in the leader election of one key (`warden.campaign`). It queues for the
 * key's lock; holding it makes it leader, for as long as the watchdog keeps the lease.
 * When the lease may be lost, the term's signal aborts and `onDemoted` runs — before the
 * store can grant the key, and so leadership, to anyone else — and the candidate queues
 * again, until `resign()` or the client closes.
 */
export class Campaign {
  readonly resource: string;
  readonly businessKey: string;
  /** Resolves when the campaign has ended: resigned, the client closed, or a fatal error. */
  readonly ended: Promise<void>;
  /** The error that ended the campaign (an unknown resource, a revoked key), if any. */
  failure: unknown = null;
  private readonly resigning = new AbortController();
  private current: Leadership | null = null;
  private readonly wakers = new Set<() => void>();

  /** @internal Made by `warden.campaign`. */
  constructor(
    private readonly warden: Warden,
    resource: string,
    businessKey: string,
    private readonly options: CampaignOptions,
    private readonly settings: CampaignSettings,
  ) {
    this.resource = resource;
    this.businessKey = businessKey;
    this.ended = this.run();
  }

  /** True while this candidate leads (its term's signal has not aborted). */
  get isLeader(): boolean {
    return this.current !== null && !this.current.signal.aborted;
  }

  /** The current term when leading, else null. */
  get term(): string | null {
    return this.isLeader ? this.current!.term : null;
  }

  /** The current term's signal when leading, else null. */
  get signal(): AbortSignal | null {
    return this.isLeader ? this.current!.signal : null;
  }

  /**
   * Leaves the election: a leader's term ends (signal, `onDemoted("resigned")`) and its
   * lock is released, handing leadership to the next candidate in the queue; a waiting
   * candidate leaves the queue. Resolves once the lock is released. Idempotent.
   */
  resign(): Promise<void> {
    if (!this.resigning.signal.aborted) {
      this.resigning.abort(new Error(`resigned from ${this.resource}/${this.businessKey}`));
    }
    return this.ended;
  }

  /**
   * Who leads now, from the server (`warden.inspect` of the key): holder, term, since
   * when; null when nobody does.
   */
  async observe(): Promise<LeaderInfo | null> {
    const info = await this.warden.inspect(this.resource, this.businessKey);
    if (!info) return null;
    return {
      holder: info.holder,
      term: info.fence,
      since: info.grantedAt,
      expiresAt: info.expiresAt,
      lockId: info.lockId,
      self: this.isLeader && this.current?.lock.lockId === info.lockId,
    };
  }

  /**
   * The leader as it changes: yields the current leader (or null) at once, then each time
   * the leader (its grant and term) or its absence changes — `self` as of that look. It polls `observe()` every `intervalMs`
   * (backing off on failed looks), and looks at once when this candidate is elected or
   * demoted; a change in between two looks that is undone by the next (a term shorter
   * than the interval) may be missed. Ends with `signal`, `break`, or the client's close.
   */
  async *watch(options: WatchOptions = {}): AsyncGenerator<LeaderInfo | null, void, undefined> {
    const intervalMs = checkMs("intervalMs", options.intervalMs, 50, 60_000) ?? 1_000;
    const maxIntervalMs = checkMs("maxIntervalMs", options.maxIntervalMs, 50, 300_000) ?? 10_000;
    const { signal } = options;
    let last: string | undefined;
    let failures = 0;
    while (!signal?.aborted && !this.clientClosed()) {
      let pauseMs = intervalMs;
      try {
        const leader = await this.observe();
        failures = 0;
        const id = leader ? `${leader.lockId}/${leader.term}` : "none";
        if (id !== last) {
          last = id;
          yield leader;
        }
      } catch (error) {
        if (isFatal(error)) throw error;
        this.report(error);
        pauseMs = Math.max(
          intervalMs,
          fullJitterDelayMs(failures++, intervalMs * 2, Math.max(intervalMs, maxIntervalMs)),
        );
      }
      await this.pause(pauseMs, signal);
    }
  }

  private async run(): Promise<void> {
    const { waitMs, leaseMs, retryBaseDelayMs, retryMaxDelayMs } = this.settings;
    const stop = this.resigning.signal;
    let failures = 0;
    while (!stop.aborted && !this.clientClosed()) {
      let lock: Lock;
      try {
        // A fresh owner per round: a new grant is never a re-entry of an earlier term's
        // lease, so every term has its own, larger fence.
        lock = await this.warden.acquire(this.resource, this.businessKey, {
          ...(leaseMs === undefined ? {} : { leaseMs }),
          waitMs,
          signal: stop,
          ownerId: newOwnerId(),
        });
      } catch (error) {
        if (stop.aborted || this.clientClosed()) break;
        if (error instanceof LockTimeoutError) {
          failures = 0;
          continue;
        }
        if (isFatal(error)) {
          this.failure = error;
          this.report(error);
          break;
        }
        await this.backoff(failures++, retryBaseDelayMs, retryMaxDelayMs);
        // A client being closed refuses acquires until its socket is closed: not an error.
        if (stop.aborted || this.clientClosed()) break;
        this.report(error);
        continue;
      }
      failures = 0;
      if (lock.fence === null) {
        // A local-tier lock excludes only this process's tasks: it cannot make a leader.
        await lock.release();
        this.report(
          new LockUnavailableError(
            `${this.resource}/${this.businessKey}: granted on the local tier, which cannot elect a leader; campaigning again`,
            { reason: "unfenced-lock" },
          ),
        );
        await this.backoff(failures++, retryBaseDelayMs, retryMaxDelayMs);
        continue;
      }
      await this.lead(lock, lock.fence);
    }
    this.wake();
  }

  /**
   * One term: from the grant until the lease may be lost, a fence guard finds the term
   * superseded, or the candidate resigns.
   */
  private async lead(lock: Lock, term: string): Promise<void> {
    const controller = new AbortController();
    const leadership: Leadership = {
      term,
      signal: controller.signal,
      // A stale outcome proves a later term was granted. The lease may still look live to
      // the watchdog — e.g. renewed in the tier that granted it while another tier granted
      // the key again, which the later term's fence makes harmless — but this candidate
      // would lead on with a term every write is refused under, keeping the others out.
      lock: reportingStale(lock, (report) =>
        demote(
          "lease-lost",
          new LeaseLostError(
            lock.lockId,
            `term ${term} of ${this.resource}/${this.businessKey} superseded: ${report.target} carries fence ${report.currentFence ?? "(unread)"}, newer than this term`,
          ),
        ),
      ),
    };
    let ended!: () => void;
    const over = new Promise<void>((resolve) => (ended = resolve));
    const demote = (reason: DemotionReason, cause?: unknown) => {
      if (controller.signal.aborted) return;
      // The term's signal aborts and onDemoted runs synchronously, in the same turn as
      // the lock's signal (or resign): before the lock is released or could be lost.
      controller.abort(cause ?? new Error(`${reason}: term ${term} ended`));
      if (this.current === leadership) this.current = null;
      this.call(() => this.options.onDemoted?.(reason, term, cause));
      this.wake();
      ended();
    };
    const onLost = () => demote("lease-lost", lock.signal.reason);
    const onResign = () => demote("resigned");
    lock.signal.addEventListener("abort", onLost, { once: true });
    this.resigning.signal.addEventListener("abort", onResign, { once: true });
    try {
      if (lock.signal.aborted) onLost();
      else if (this.resigning.signal.aborted) onResign();
      else {
        this.current = leadership;
        this.wake();
        this.call(() => this.options.onElected?.(term, leadership));
      }
      await over;
    } finally {
      lock.signal.removeEventListener("abort", onLost);
      this.resigning.signal.removeEventListener("abort", onResign);
      await lock.release();
    }
  }

  private clientClosed(): boolean {
    return this.warden.state === "closed";
  }

  private call(fn: () => unknown): void {
    try {
      const result = fn();
      if (result instanceof Promise) result.catch((error: unknown) => this.report(error));
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // An error handler that throws has nowhere else to go.
    }
  }

  private async backoff(attempt: number, baseMs: number, capMs: number): Promise<void> {
    await sleep(fullJitterDelayMs(attempt, baseMs, capMs), this.resigning.signal).catch(
      () => undefined,
    );
  }

  /** Sleeps `ms`, or less when this candidate is elected or demoted, or `signal` aborts. */
  private pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }
}

/**
 * `lock` as the leader's work sees it: the same handle, except that a fence guard's
 * stale report (`reportStaleFence`) also calls `onStale`. Every other member is the
 * lock's own, bound to it.
 */
function reportingStale(lock: Lock, onStale: (report: StaleFenceReport) => void): Lock {
  return new Proxy(lock, {
    get(target, property) {
      if (property === "reportStaleFence") {
        return (report: StaleFenceReport) => {
          target.reportStaleFence(report);
          onStale(report);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function"
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
