import { LockUnavailableError } from "@warden/contract";
import type { StoreEventEmitter } from "../events/event-emitter.js";
import type { EpochSource } from "../fence/epoch-source.js";
import { bindEpoch } from "./generated/lua-scripts.js";
import { callScript, type RedisClient } from "./redis-connection.js";

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
    await Promise.all(epochKeys.map((key) => callScript(this.client, bindEpoch, [key], [epoch])));
    this.events.epoch(epoch, reason, nodeId);
  }
}
