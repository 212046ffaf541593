import { MysqlEpochSource, RedisLockStore } from "@warden/core";
import { createPool, type Pool } from "mysql2/promise";
import type { Held, Variant } from "./variant.js";

/** Resource name the in-process store locks under. */
const RESOURCE = "bench:core";

/**
 * Warden's Redis tier called in-process (`RedisLockStore`): the Lua scripts, fence
 * minting and validation without the server and the network hop to it. Epochs come from
 * MySQL as in production; they are read at open and on rebinds only.
 */
export class CoreRedisVariant implements Variant {
  readonly name = "core-redis" as const;
  private owners = 0;

  private constructor(
    private readonly store: RedisLockStore,
    private readonly epochPool: Pool,
    private readonly clientId: string,
    private readonly leaseMs: number,
  ) {}

  static async open(
    redisUrl: string,
    epochDbUrl: string,
    leaseMs: number,
  ): Promise<CoreRedisVariant> {
    const epochPool = createPool({ uri: epochDbUrl, connectionLimit: 2 });
    try {
      const store = await RedisLockStore.open({
        topology: { mode: "standalone", url: redisUrl },
        epochSource: new MysqlEpochSource(epochPool),
      });
      return new CoreRedisVariant(store, epochPool, `bench-core-${process.pid}`, leaseMs);
    } catch (error) {
      await epochPool.end();
      throw error;
    }
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const key = { resource: RESOURCE, businessKey };
    // A distinct owner per cycle: concurrent cycles in one process must exclude each
    // other, not re-enter each other's locks.
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
