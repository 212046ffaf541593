import { LockUnavailableError } from "@warden/contract";
import type { StoreEventEmitter } from "../events/event-emitter.js";
import type { EpochSource } from "../fence/epoch-source.js";
import { bindEpoch } from "./generated/lua-scripts.js";
import { callScript, type RedisClient } from "./redis-connection.js";
import { UNREACHABLE_RETRY_AFTER_MS, retryAfterMsOf } from "./reply-error.js";

/** The longest a node that failed its last bind waits before the next mint and bind, in ms. */
const BIND_BACKOFF_MAX_MS = 5_000;

/** A node whose last bind failed: no new epoch is minted for it before `untilMs`. */
interface BackOff {
  readonly untilMs: number;
  readonly stepMs: number;
  readonly message: string;
  /** Whether the failure passes on its own (a replica, no connection): callers may retry. */
  readonly passing: boolean;
}

/**
 * Keeps Redis nodes bound to fencing epochs (see bindEpoch-1.lua).
 *
 * `minEpoch` is the lowest epoch this store accepts on a node; it starts at the durable
 * current epoch and is raised by the tier controller after each tier switch, so Redis
 * fences always exceed those the MySQL tier handed out. A node below it, or bound to an
 * old replication id (a promoted replica), gets a FRESH epoch minted for it alone. No
 * durable epoch (MySQL down) means no binding, and the store refuses to grant
 * (docs/design.md#fences-only-grow, #fail-closed).
 */
export class EpochBinder {
  private minEpochValue = 0;
  private started = false;
  private starting: Promise<void> | undefined;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly backOff = new Map<string, BackOff>();

  constructor(
    private readonly client: RedisClient,
    private readonly source: EpochSource,
    private readonly events: StoreEventEmitter,
  ) {}

  /** The lowest epoch a node must be bound at before it may grant. */
  get minEpoch(): number {
    return this.minEpochValue;
  }

  /** True once the durable epoch is loaded (then {@link ensureStarted} has nothing to do). */
  get ready(): boolean {
    return this.started;
  }

  /**
   * Loads the durable epoch (minting the first one on an empty database). Until it has,
   * the store does not know its floor and must not grant: {@link ensureStarted} throws.
   */
  ensureStarted(): Promise<void> {
    if (this.started) return Promise.resolve();
    this.starting ??= this.load().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async load(): Promise<void> {
    try {
      const current = await this.source.current();
      this.require(current > 0 ? current : await this.source.mint("first epoch"));
      this.started = true;
    } catch (cause) {
      throw new LockUnavailableError("cannot read the durable fencing epoch; refusing to grant", {
        cause,
        reason: "fencing-epoch",
      });
    }
  }

  /** Raises the floor: nodes bound below `epoch` get a fresh epoch before their next grant. */
  require(epoch: number): void {
    this.minEpochValue = Math.max(this.minEpochValue, epoch);
  }

  /**
   * Mints an epoch and binds it to the node holding `epochKeys` (one key on standalone and
   * sentinel; every slot of the node on a cluster). Concurrent calls for one node share
   * one mint.
   */
  rebind(nodeId: string, epochKeys: readonly string[], reason: string): Promise<void> {
    const running = this.inFlight.get(nodeId);
    if (running) return running;
    const waiting = this.backOff.get(nodeId);
    const leftMs = waiting ? Math.ceil(waiting.untilMs - performance.now()) : 0;
    if (waiting && leftMs > 0) {
      return Promise.reject(
        new LockUnavailableError(
          `Redis node ${nodeId} failed to take its last fencing epoch (${waiting.message}); ` +
            `no new one for another ${leftMs} ms; nothing was granted`,
          { retryAfterMs: waiting.passing ? leftMs : null },
        ),
      );
    }
    const task = this.bind(nodeId, epochKeys, reason).finally(() => this.inFlight.delete(nodeId));
    this.inFlight.set(nodeId, task);
    return task;
  }

  private async bind(nodeId: string, epochKeys: readonly string[], reason: string): Promise<void> {
    let epoch: number;
    try {
      epoch = await this.source.mint(`redis ${nodeId}: ${reason}`);
    } catch (cause) {
      throw new LockUnavailableError(
        `cannot mint a fencing epoch for Redis node ${nodeId} (${reason}); refusing to grant`,
        { cause, reason: "fencing-epoch" },
      );
    }
    try {
      await Promise.all(epochKeys.map((key) => callScript(this.client, bindEpoch, [key], [epoch])));
    } catch (cause) {
      throw this.failed(nodeId, epoch, reason, cause);
    }
    this.backOff.delete(nodeId);
    this.events.epoch(epoch, reason, nodeId);
  }

  /**
   * A bind that failed: the node cannot grant, and the caller gets a typed refusal. A bind
   * grants nothing, so whatever happened to it, retrying is safe; but each try spends an
   * epoch of the 20-bit space, so the node's next mint waits 250 ms, doubling per failure in
   * a row up to 5 s: a node that refuses writes for hours (a master demoted under a client
   * that did not follow) spends ~12 epochs a minute, not one per acquire.
   */
  private failed(nodeId: string, epoch: number, reason: string, cause: unknown): Error {
    const message = cause instanceof Error ? cause.message : String(cause);
    const passing = retryAfterMsOf(cause) !== null;
    // "In a row": a failure long after the last one's wait ended starts again at 250 ms.
    const previous = this.backOff.get(nodeId);
    const inARow = previous && performance.now() - previous.untilMs < BIND_BACKOFF_MAX_MS;
    const stepMs = inARow
      ? Math.min(BIND_BACKOFF_MAX_MS, previous.stepMs * 2)
      : UNREACHABLE_RETRY_AFTER_MS;
    this.backOff.set(nodeId, { untilMs: performance.now() + stepMs, stepMs, message, passing });
    return new LockUnavailableError(
      `could not bind fencing epoch ${epoch} to Redis node ${nodeId} (${reason}): ${message}; ` +
        `nothing was granted`,
      { cause, retryAfterMs: passing ? stepMs : null },
    );
  }
}
