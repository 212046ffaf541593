import type { Pool } from "mysql2/promise";
import { LockUnavailableError } from "@warden/contract";
import type { StoreEventEmitter } from "../events/event-emitter.js";
import type { EpochSource } from "../fence/epoch-source.js";
import { REGISTER_EPOCH } from "./sql/fence-epochs.js";

/**
 * The epochs this tier grants at (table `mysql_fence_base`, shared by every server).
 *
 * The acquire statement grants at the newest registered epoch and only while it is at
 * least the durable current epoch. Every epoch minted since (a tier switch, a Redis node
 * binding its own fresh epoch) may be one Redis grants with, so this class then mints a
 * newer epoch for the MySQL tier alone and registers it; the same happens when an
 * epoch's counter runs low. No durable epoch (MySQL or the source down) means no
 * registration and no grant: LockUnavailableError (docs/design.md#fences-only-grow, #fail-closed).
 */
export class MysqlFenceEpochs {
  private floor = 0;
  private registered = 0;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly source: EpochSource,
    private readonly events: StoreEventEmitter,
  ) {}

  /** Asks that grants use at least `epoch` (e.g. the epoch the controller minted for a switch). */
  require(epoch: number): void {
    this.floor = Math.max(this.floor, epoch);
  }

  /** The lowest epoch this store has been asked to grant at. */
  get minEpoch(): number {
    return this.floor;
  }

  /** Registers the floor epoch if a {@link require} raised it since the last grant. */
  async ensureFloor(): Promise<void> {
    if (this.floor > this.registered) await this.register(this.floor, "floor raised");
  }

  /** Mints and registers a fresh epoch; concurrent calls share one mint. */
  renew(reason: string): Promise<void> {
    this.renewing ??= this.mintAndRegister(reason).finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async mintAndRegister(reason: string): Promise<void> {
    let epoch: number;
    try {
      epoch = await this.source.mint(`mysql tier: ${reason}`);
    } catch (cause) {
      throw new LockUnavailableError(`cannot mint a fencing epoch for the MySQL tier (${reason})`, {
        cause,
        reason: "fencing-epoch",
      });
    }
    await this.register(epoch, reason);
  }

  private async register(epoch: number, reason: string): Promise<void> {
    await this.pool.execute(REGISTER_EPOCH, [epoch]);
    this.registered = Math.max(this.registered, epoch);
    this.floor = Math.max(this.floor, epoch);
    this.events.epoch(epoch, reason);
  }
}
