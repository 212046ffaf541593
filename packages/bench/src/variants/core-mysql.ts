import { MysqlEpochSource, MysqlLockStore } from "@warden/core";
import { createPool, type Pool } from "mysql2/promise";
import type { Held, Variant } from "./variant.js";

/** Resource name the in-process store locks under. */
const RESOURCE = "bench:core-mysql";

/**
 * Warden's MySQL tier called in-process (`MysqlLockStore`): the acquire statement with
 * its guards (epoch, counter headroom, Redis-lease mirror, shared tier), fence minting and
 * validation, without the server. Its database has no `tier_state` row, so the tier
 * grants as it does while the fleet is on MySQL.
 */
export class CoreMysqlVariant implements Variant {
  readonly name = "core-mysql" as const;
  private owners = 0;

  private constructor(
    private readonly store: MysqlLockStore,
    private readonly epochPool: Pool,
    private readonly clientId: string,
    private readonly leaseMs: number,
  ) {}

  static async open(dbUrl: string, leaseMs: number): Promise<CoreMysqlVariant> {
    const epochPool = createPool({ uri: dbUrl, connectionLimit: 2 });
    try {
      const store = await MysqlLockStore.open({
        connection: dbUrl,
        epochSource: new MysqlEpochSource(epochPool),
      });
      return new CoreMysqlVariant(store, epochPool, `bench-core-mysql-${process.pid}`, leaseMs);
    } catch (error) {
      await epochPool.end();
      throw error;
    }
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const key = { resource: RESOURCE, businessKey };
    // A distinct owner per cycle, as in core-redis: concurrent cycles must exclude each other.
    this.owners += 1;
    const holder = { clientId: this.clientId, ownerId: `o${this.owners}` };
    const result = await this.store.acquire({ ...key, holder, leaseMs: this.leaseMs });
    if (!result.granted) return null;
    return {
      finish: async () => {
        await this.store.release({ ...key, lockId: result.lockId });
      },
    };
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.epochPool.end();
  }
}
