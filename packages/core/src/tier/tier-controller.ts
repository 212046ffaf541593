import { performance } from "node:perf_hooks";
import { LockUnavailableError, type Tier } from "@warden/contract";
import type { EpochSource } from "../fence/epoch-source.js";
import { decideTier, type TierChange } from "./decide-tier.js";
import { HealthTracker } from "./health-tracker.js";
import type { TierSnapshot, TierTransitionRow } from "./tier-snapshot.js";
import type { TierStateRepository } from "./tier-state-repository.js";

/** Options of {@link TierController}; all durations in ms. */
export interface TierControllerOptions {
  /** This server instance, as recorded in the history. */
  readonly instanceId: string;
  /** Probe interval. @defaultValue 1000 */
  readonly probeIntervalMs?: number;
  /** Failed Redis probes in a row before degrading. @defaultValue 3 */
  readonly failuresToDegrade?: number;
  /** Successful Redis probes in a row before recovering. @defaultValue 5 */
  readonly successesToRecover?: number;
  /** Redis must have answered this long before recovering. @defaultValue 10000 */
  readonly holdDownMs?: number;
}

/** Defaults of {@link TierControllerOptions}. */
export const TIER_CONTROLLER_DEFAULTS = Object.freeze({
  probeIntervalMs: 1_000,
  failuresToDegrade: 3,
  successesToRecover: 5,
  holdDownMs: 10_000,
});

/** What the controller probes and tells about epochs. */
export interface TierBackends {
  /** Redis answers PING. */
  probeRedis(): Promise<boolean>;
  /** The shared row and history. */
  readonly repository: TierStateRepository;
  readonly epochSource: EpochSource;
}

type Listener = (snapshot: TierSnapshot, previous: TierSnapshot) => void;

/**
 * Decides the tier (docs/decisions/0005): probes Redis and MySQL every interval, follows
 * the shared `tier_state` row, proposes changes by compare-and-set with a freshly minted
 * epoch, and decides alone (saying so) while MySQL is unreachable.
 */
export class TierController {
  private readonly options: typeof TIER_CONTROLLER_DEFAULTS & { instanceId: string };
  private readonly redisHealth: HealthTracker;
  private view: TierSnapshot;
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private mysqlUp = true;

  constructor(
    private readonly backends: TierBackends,
    options: TierControllerOptions,
  ) {
    this.options = {
      ...TIER_CONTROLLER_DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
      instanceId: options.instanceId,
    };
    this.redisHealth = new HealthTracker(this.options);
    this.view = {
      tier: "redis",
      version: 0,
      epoch: 0,
      since: Date.now(),
      reason: "starting",
      actor: "controller",
      instanceId: options.instanceId,
      forced: false,
      decidedAlone: true,
    };
  }

  /** The tier this instance grants on now. */
  get snapshot(): TierSnapshot {
    return this.view;
  }

  /** Whether the last probe reached MySQL. */
  get mysqlReachable(): boolean {
    return this.mysqlUp;
  }

  /** Reads the shared state once, then probes every interval (timer unref'd). */
  async start(): Promise<void> {
    const epoch = await this.backends.epochSource.current().catch(() => 0);
    this.view = { ...this.view, epoch };
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.options.probeIntervalMs);
    this.timer.unref();
  }

  /** Calls `listener` after every change of tier or epoch; returns an unsubscribe function. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One probe-and-decide round; concurrent calls share it. Exposed for tests. */
  tick(): Promise<void> {
    this.ticking ??= this.round().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Pins the tier (or unpins with null); needs MySQL, is recorded with who and why. */
  async override(tier: Tier | null, actor: string, reason: string): Promise<TierSnapshot> {
    const { repository, epochSource } = this.backends;
    const shared = await this.readShared().catch((cause: unknown) => {
      throw new LockUnavailableError("cannot record a tier override while MySQL is unreachable", {
        cause,
      });
    });
    const target = tier ?? shared.tier;
    const epoch =
      target === shared.tier
        ? shared.epoch
        : await epochSource.mint(`override to ${target}: ${reason}`);
    const written = await repository.compareAndSet(shared.version, shared.tier, {
      tier: target,
      epoch,
      reason: tier ? `override: ${reason}` : `override lifted: ${reason}`,
      actor,
      instanceId: this.options.instanceId,
      forced: tier !== null,
    });
    if (!written)
      throw new LockUnavailableError("tier changed concurrently; retry the override", {
        reason: "tier-change",
      });
    this.adopt(await this.readShared());
    return this.view;
  }

  /** The newest transitions. */
  history(limit: number): Promise<TierTransitionRow[]> {
    return this.backends.repository.history(limit);
  }

  /** Stops probing. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.backends.repository.close();
  }

  private async round(): Promise<void> {
    const [redisOk, mysqlOk] = await Promise.all([
      this.backends.probeRedis(),
      this.backends.repository.ping(),
    ]);
    const now = performance.now();
    this.redisHealth.record(redisOk, now);
    this.mysqlUp = mysqlOk;
    let mayRecover = false;
    if (mysqlOk) {
      try {
        await this.backends.repository.holdLiveness(this.options.instanceId);
        const shared = await this.readShared();
        if (this.leavesLocalBySwitch(shared)) {
          // Keep `local` and the row's version: decideTier below proposes local -> redis or
          // mysql by compare-and-set, with a fresh epoch and its own hold-down.
          this.view = { ...this.view, version: shared.version, epoch: shared.epoch };
        } else {
          this.adopt(shared);
        }
        mayRecover =
          shared.instanceId === this.options.instanceId ||
          !(await this.backends.repository.isAlive(shared.instanceId));
      } catch {
        this.mysqlUp = false;
      }
    }
    const change = decideTier({
      current: this.view.tier,
      forced: this.view.forced,
      redisHealthy: this.redisHealth.healthy,
      redisRecovered: this.redisHealth.recovered(now),
      mysqlUp: this.mysqlUp,
      mayRecover,
    });
    if (change) await this.apply(change);
  }

  private async apply(change: TierChange): Promise<void> {
    if (!this.mysqlUp) {
      this.adopt({
        ...this.view,
        tier: change.tier,
        reason: change.reason,
        actor: "controller",
        since: Date.now(),
        decidedAlone: true,
      });
      return;
    }
    try {
      const epoch = await this.backends.epochSource.mint(
        `tier ${this.view.tier} -> ${change.tier}: ${change.reason}`,
      );
      await this.backends.repository.compareAndSet(this.view.version, this.view.tier, {
        tier: change.tier,
        epoch,
        reason: change.reason,
        actor: "controller",
        instanceId: this.options.instanceId,
        forced: false,
      });
      // Whether we won or another instance did, the row now says what the fleet does.
      this.adopt(await this.readShared());
    } catch {
      this.mysqlUp = false;
    }
  }

  /**
   * Whether this instance, on `local` by its own decision while MySQL was gone, must leave
   * it by a switch of its own rather than by following the row. A row nobody changed since
   * this instance last read it (or one it never read: it started without MySQL) describes
   * the fleet before the outage: following it would put this instance back on that tier
   * with that epoch and without a hold-down, while another instance that also left local
   * proposes a different tier with a newer epoch — two tiers granting one key, fences going
   * backwards (found by `pnpm chaos`, db-and-redis-down). A row another instance changed
   * since this one last read it is followed: after an outage that is the switch of the
   * instance that left local first, with its fresh epoch (docs/decisions/0192 names the
   * narrow case where it is a change made just before the outage).
   */
  private leavesLocalBySwitch(shared: TierSnapshot): boolean {
    return (
      this.view.tier === "local" &&
      this.view.decidedAlone &&
      !shared.forced &&
      (this.view.version === 0 || shared.version === this.view.version)
    );
  }

  private readShared(): Promise<TierSnapshot> {
    return this.backends.repository.read(this.view.epoch, this.options.instanceId);
  }

  private adopt(next: TierSnapshot): void {
    const previous = this.view;
    this.view = next;
    const changed =
      previous.tier !== next.tier ||
      previous.epoch !== next.epoch ||
      previous.forced !== next.forced;
    if (changed || previous.decidedAlone !== next.decidedAlone) {
      for (const listener of this.listeners) listener(next, previous);
    }
  }
}
